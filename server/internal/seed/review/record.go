package review

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Reading is one recorded verdict of an independent reader (sql/seed/reviews/README.md).
type Reading struct {
	Code    string `yaml:"code"`
	Verdict string `yaml:"verdict"`
	Reader  string `yaml:"reader"`
	Date    string `yaml:"date"`
	Hash    string `yaml:"hash"`
	Reasons string `yaml:"reasons"`
}

// Verdicts a reader may record: sign (correct as it stands) or fix (must change).
const (
	Sign = "sign"
	Fix  = "fix"
)

var (
	recordNameRe = regexp.MustCompile(`^(cases|grile)-(civil|penal|constitutional)\.yaml$`)
	hashRe       = regexp.MustCompile(`^[0-9a-f]{16}$`)
)

// RecordFile names the items a record file may speak about: its name is
// <kind>-<domain>.yaml, and Items holds the current hash of every item of that kind and
// domain (from ItemHashes of the matching curriculum file).
type RecordFile struct {
	Name  string
	Data  []byte
	Items map[string]string
}

// RecordKind returns the kind (cases|grile) and domain a record file name stands for, or
// ok=false for a name outside the convention.
func RecordKind(name string) (kind, domain string, ok bool) {
	m := recordNameRe.FindStringSubmatch(name)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// ParseRecord decodes one record file strictly (unknown keys are errors) and validates
// every entry: a code of an item of the file's kind and domain, verdict sign|fix, and a
// non-empty reader, reasons, date (YYYY-MM-DD) and hash (16 hex digits). It returns the
// entries and one message per problem.
func ParseRecord(f RecordFile) ([]Reading, []string) {
	if _, _, ok := RecordKind(f.Name); !ok {
		return nil, []string{f.Name + ": a record file is named <cases|grile>-<civil|penal|constitutional>.yaml"}
	}
	var readings []Reading
	dec := yaml.NewDecoder(bytes.NewReader(f.Data))
	dec.KnownFields(true)
	if err := dec.Decode(&readings); err != nil && !errors.Is(err, io.EOF) {
		return nil, []string{fmt.Sprintf("%s: %v", f.Name, err)}
	}
	var problems []string
	for i, r := range readings {
		bad := func(format string, args ...any) {
			problems = append(problems, fmt.Sprintf("%s entry %d (%s): %s", f.Name, i+1, r.Code, fmt.Sprintf(format, args...)))
		}
		if _, known := f.Items[r.Code]; !known {
			bad("no item with this code in the matching curriculum file")
		}
		if r.Verdict != Sign && r.Verdict != Fix {
			bad("verdict %q (sign or fix)", r.Verdict)
		}
		for field, v := range map[string]string{"reader": r.Reader, "reasons": r.Reasons} {
			if strings.TrimSpace(v) == "" {
				bad("%s is empty", field)
			}
		}
		if _, err := time.Parse(time.DateOnly, r.Date); err != nil {
			bad("date %q is not YYYY-MM-DD", r.Date)
		}
		if !hashRe.MatchString(r.Hash) {
			bad("hash %q is not 16 hex digits (go run ./server/cmd/review-hash)", r.Hash)
		}
	}
	return readings, problems
}

// Unsigned lists, sorted, the items whose current hash is not covered: no reader signed
// that content, or any reader asked for a fix of it. Two professors who disagree about the
// same text leave it unsigned until it is changed and read again, whatever the order of
// their entries.
func Unsigned(items map[string]string, readings []Reading) []string {
	signed, fixed := map[string]bool{}, map[string]bool{} // keyed by code + " " + hash
	for _, r := range readings {
		key := r.Code + " " + r.Hash
		switch r.Verdict {
		case Sign:
			signed[key] = true
		case Fix:
			fixed[key] = true
		}
	}
	var out []string
	for code, h := range items {
		if key := code + " " + h; !signed[key] || fixed[key] {
			out = append(out, code)
		}
	}
	sort.Strings(out)
	return out
}
