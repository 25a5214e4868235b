package lawcodes

import (
	"regexp"
	"strings"
	"testing"
)

func TestShippedCodesParse(t *testing.T) {
	cases := []struct {
		code           string
		headers, first int
		last           int
		inserted       int
	}{
		{"civil", 2674, 1, 2664, 10},
		{"penal", 457, 1, 446, 11},
		{"constitutional", 156, 1, 156, 0},
	}
	for _, tc := range cases {
		c, _ := ByID(tc.code)
		arts, err := Load(c)
		if err != nil {
			t.Fatal(err)
		}
		if len(arts) != tc.headers {
			t.Errorf("%s: %d articles, want %d", tc.code, len(arts), tc.headers)
		}
		// Base numbers run first..last with no gaps and no duplicates.
		seen := map[string]bool{}
		next, inserted := tc.first, 0
		for i, a := range arts {
			if seen[a.Number] {
				t.Fatalf("%s: duplicate article %s", tc.code, a.Number)
			}
			seen[a.Number] = true
			if a.Position != i+1 {
				t.Fatalf("%s: position %d at index %d", tc.code, a.Position, i)
			}
			if a.Minor > 0 {
				inserted++
				continue
			}
			if a.Major != next {
				t.Fatalf("%s: article %d follows %d", tc.code, a.Major, next-1)
			}
			next++
			if a.Body == "" {
				t.Errorf("%s art. %s has no text", tc.code, a.Number)
			}
			if len(a.Headings) == 0 {
				t.Errorf("%s art. %s has no heading path", tc.code, a.Number)
			}
		}
		if next-1 != tc.last || inserted != tc.inserted {
			t.Errorf("%s: last %d inserted %d, want %d and %d", tc.code, next-1, inserted, tc.last, tc.inserted)
		}
	}
}

func TestKnownArticles(t *testing.T) {
	find := func(code, num string) Article {
		c, _ := ByID(code)
		arts, _ := Load(c)
		for _, a := range arts {
			if a.Number == num {
				return a
			}
		}
		t.Fatalf("%s art. %s not found", code, num)
		return Article{}
	}
	a := find("civil", "1357")
	if a.Title != "Condițiile răspunderii" || !strings.HasPrefix(a.Body, "(1) Cel care cauzează altuia un prejudiciu") {
		t.Errorf("C.civ. 1357: %q / %.60q", a.Title, a.Body)
	}
	if got := strings.Join(a.Headings, " › "); !strings.Contains(got, "Cartea a V-a") || !strings.Contains(got, "Răspunderea civilă") {
		t.Errorf("C.civ. 1357 headings: %s", got)
	}
	if a := find("civil", "2029^1"); a.Major != 2029 || a.Minor != 1 || a.Body == "" {
		t.Errorf("C.civ. 2029^1: %+v", a)
	}
	if a := find("penal", "188"); a.Title != "Omorul" {
		t.Errorf("C.pen. 188 title %q", a.Title)
	}
	if a := find("penal", "231"); a.Title != "" || a.Body == "" {
		t.Errorf("C.pen. 231 has no marginal title in the source: %q", a.Title)
	}
	if a := find("constitutional", "146"); a.Title != "Atribuții" || !strings.Contains(a.Body, "Curtea Constituțională") {
		t.Errorf("Const. 146: %q", a.Title)
	}
}

func TestParseReference(t *testing.T) {
	good := map[string]Reference{
		"Art. 1357 C.civ.":                  {Code: "civil", Number: "1357"},
		"Art. 1358 alin. (1) C.civ.":        {Code: "civil", Number: "1358", Detail: "alin. (1)"},
		"Art. 112^1 C.pen.":                 {Code: "penal", Number: "112^1"},
		"Art. 229 alin. (1) lit. d) C.pen.": {Code: "penal", Number: "229", Detail: "alin. (1) lit. d)"},
		"Art. 146 lit. d) Const.":           {Code: "constitutional", Number: "146", Detail: "lit. d)"},
		"art. 53 Constituția":               {Code: "constitutional", Number: "53"},
	}
	for in, want := range good {
		got, err := ParseReference(in)
		if err != nil || got != want {
			t.Errorf("%q: got %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "Art. C.civ.", "1357", "Art. 12 Codul muncii"} {
		if _, err := ParseReference(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if got := FormatReference("penal", "229"); got != "Art. 229 C.pen." {
		t.Errorf("format: %s", got)
	}
}

// decisionMarkers are the openings and formulas of text that is not law: dispositives of
// ÎCCJ (HP/RIL) and CCR decisions, portal notes and amendment annotations.
var decisionMarkers = regexp.MustCompile(`^(Stabilește că|În interpretarea (și aplicarea )?dispozițiilor|Admite (sesizarea|recursul|excepția)|Notă|NOTĂ)|Decizia nr\.|\(la \d{2}-\d{2}-\d{4}|a fost (modificat|abrogat|introdus|completat) (de|prin) |\*\)`)

// TestArticleBodiesCarryOnlyLaw keeps the shipped codes to law (#29): no decision or
// annotation text in an article, and no stray unnumbered line — after an article's first
// line, an unnumbered line only ends an enumeration ("…se pedepsește cu…") or quotes a
// text the article introduces (the oath of art. 82 Const.). Art. 183 C.pen. once carried
// two ÎCCJ dispositives; art. 2663 C.civ. once carried the "Dispoziții finale" heading.
func TestArticleBodiesCarryOnlyLaw(t *testing.T) {
	item := regexp.MustCompile(`^([a-z](\^\d+)?\)|\d+(\^\d+)?\.)`)
	for _, c := range Codes {
		arts, err := Load(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range arts {
			lines := strings.Split(a.Body, "\n")
			for i, l := range lines {
				if decisionMarkers.MatchString(l) {
					t.Errorf("%s art. %s line %d is not law: %.90s", c.ID, a.Number, i+1, l)
					continue
				}
				if i == 0 || paraStart.MatchString(l) {
					continue
				}
				prev := lines[i-1]
				if !strings.HasSuffix(prev, ":") && !item.MatchString(prev) && !strings.HasPrefix(l, `"`) {
					t.Errorf("%s art. %s line %d stands outside any paragraph: %.90s", c.ID, a.Number, i+1, l)
				}
			}
		}
	}
	civil, _ := ByID("civil")
	arts, err := Load(civil)
	if err != nil {
		t.Fatal(err)
	}
	last := arts[len(arts)-1]
	if last.Number != "2664" || strings.Join(last.Headings, " › ") != "Dispoziții finale" {
		t.Errorf("art. %s headings %q, want art. 2664 under Dispoziții finale", last.Number, last.Headings)
	}
}
