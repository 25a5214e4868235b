package seed

import (
	"sort"
	"strings"
	"testing"

	"casus/server/internal/seed/review"
)

// TestEveryItemSigned is the review gate (#29): every case and grilă reaches main only with
// a "sign" verdict of an independent reader for its current content hash, recorded in
// sql/seed/reviews/<kind>-<domain>.yaml. Any change to an item changes its hash and needs a
// new reading.
func TestEveryItemSigned(t *testing.T) {
	items, err := ItemHashes()
	if err != nil {
		t.Fatal(err)
	}
	readings, problems := Readings(items)
	for _, p := range problems {
		t.Error(p)
	}
	keys := make([]string, 0, len(items))
	for k := range items {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		unsigned := review.Unsigned(items[k], readings[k])
		if len(unsigned) == 0 {
			continue
		}
		lines := make([]string, len(unsigned))
		for i, code := range unsigned {
			lines[i] = code + " " + items[k][code]
		}
		t.Errorf("%s: %d of %d items have no sign verdict for their current hash (record in sql/seed/reviews/%s.yaml):\n%s",
			k, len(unsigned), len(items[k]), k, strings.Join(lines, "\n"))
	}
}
