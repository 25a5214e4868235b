package seed

import (
	"fmt"
	"io/fs"
	"path"
	"sort"

	"casus/server/internal/catalog"
	"casus/server/internal/seed/review"
	casussql "casus/sql"
)

// ItemHashes returns the current content hash of every shipped case and grilă, keyed by
// "<kind>-<domain>" (cases-civil, grile-penal, …), the name of the record file that holds
// their readings.
func ItemHashes() (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	for _, d := range catalog.Domains {
		files := map[string]string{"grile": GrileFiles[d.Code]}
		if d.File != "" {
			files["cases"] = d.File
		}
		for kind, file := range files {
			if file == "" {
				continue
			}
			b, err := fs.ReadFile(casussql.Seed, "seed/"+kind+"/"+file)
			if err != nil {
				return nil, err
			}
			h, _, err := review.ItemHashes(b)
			if err != nil {
				return nil, fmt.Errorf("seed/%s/%s: %w", kind, file, err)
			}
			out[kind+"-"+d.Code] = h
		}
	}
	return out, nil
}

// Readings loads and validates every record file of sql/seed/reviews/, returning the
// readings per "<kind>-<domain>" and one message per problem.
func Readings(items map[string]map[string]string) (map[string][]review.Reading, []string) {
	out := map[string][]review.Reading{}
	var problems []string
	names, err := fs.Glob(casussql.Seed, "seed/reviews/*.yaml")
	if err != nil {
		return nil, []string{err.Error()}
	}
	sort.Strings(names)
	for _, name := range names {
		base := path.Base(name)
		b, err := fs.ReadFile(casussql.Seed, name)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		key := base[:len(base)-len(".yaml")]
		readings, p := review.ParseRecord(review.RecordFile{Name: base, Data: b, Items: items[key]})
		problems = append(problems, p...)
		out[key] = append(out[key], readings...)
	}
	return out, problems
}
