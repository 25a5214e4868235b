package seed

import (
	"fmt"
	"strings"
	"testing"

	"casus/server/internal/catalog"
)

// TestCurriculum validates every shipped case against the catalogue, the content rules
// and the codes (every cited article exists), and the curriculum's totals: 24 civil, 20 criminal
// and 16 constitutional cases, every week 1–12 and, in each domain, every level.
func TestCurriculum(t *testing.T) {
	cases, err := LoadCases()
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	arts, err := ArticleIndex()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range Validate(cases, cat, arts) {
		t.Error(p)
	}
	perDomain := map[string]int{}
	levels := map[string]map[string]bool{}
	weeks := map[int]bool{}
	for _, c := range cases {
		perDomain[c.Domain]++
		if levels[c.Domain] == nil {
			levels[c.Domain] = map[string]bool{}
		}
		levels[c.Domain][c.Level] = true
		weeks[c.Week] = true
	}
	for domain, want := range map[string]int{"civil": 24, "penal": 20, "constitutional": 16} {
		if perDomain[domain] < want {
			t.Errorf("%s: %d cases, want at least %d", domain, perDomain[domain], want)
		}
		if len(levels[domain]) != 3 {
			t.Errorf("%s: levels %v, want Ușor, Mediu and Dificil", domain, levels[domain])
		}
	}
	if len(cases) < 60 {
		t.Errorf("%d cases, want at least 60", len(cases))
	}
	for w := 1; w <= 12; w++ {
		if !weeks[w] {
			t.Errorf("no case in week %d", w)
		}
	}
}

// The validator itself must catch what it promises to catch.
func TestValidateRejectsBadCases(t *testing.T) {
	cat, _ := catalog.Load()
	arts, _ := ArticleIndex()
	good := Case{
		Code: "CIV5ABC", Domain: "civil", CategoryID: "legea_civila", Subcategory: "Izvoarele dreptului civil",
		Level: "Mediu", Week: 5, Title: "Caz 1: Un titlu", LegalProblem: "P.", Question: "Q?", ModelAnswer: "M.",
		CaseDescription: strings.Repeat("cuvânt ", 200), Articles: []string{"Art. 1 C.civ."},
		AnalysisSteps: []string{"a", "b", "c"}, Hints: []string{"x", "y"},
	}
	if p := Validate([]Case{good}, cat, arts); len(p) != 0 {
		t.Fatalf("good case rejected: %v", p)
	}
	mutations := map[string]func(*Case){
		"code format":      func(c *Case) { c.Code = "CIV5AB" },
		"code week":        func(c *Case) { c.Code = "CIV6ABC" },
		"unknown category": func(c *Case) { c.CategoryID = "nope" },
		"subcategory":      func(c *Case) { c.Subcategory = "Nu există" },
		"other domain":     func(c *Case) { c.CategoryID = "drepturi_fundamentale" },
		"catch-all":        func(c *Case) { c.CategoryID = "altele_civil" },
		"level":            func(c *Case) { c.Level = "usor" },
		"title":            func(c *Case) { c.Title = "Un titlu" },
		"short text":       func(c *Case) { c.CaseDescription = "prea scurt" },
		"steps":            func(c *Case) { c.AnalysisSteps = c.AnalysisSteps[:2] },
		"hints":            func(c *Case) { c.Hints = nil },
		"missing article":  func(c *Case) { c.Articles = []string{"Art. 9999 C.civ."} },
		"bad reference":    func(c *Case) { c.Articles = []string{"articolul unu"} },
		"cedilla":          func(c *Case) { c.Question = "Ce faceţi?" },
		"empty answer":     func(c *Case) { c.ModelAnswer = " " },
	}
	for name, mutate := range mutations {
		c := good
		c.Articles = append([]string(nil), good.Articles...)
		mutate(&c)
		if p := Validate([]Case{c}, cat, arts); len(p) == 0 {
			t.Errorf("%s: not caught", name)
		}
	}
	var four []Case
	for i := 0; i < 4; i++ {
		c := good
		c.Code = fmt.Sprintf("CIV5AB%c", 'A'+i)
		four = append(four, c)
	}
	if p := Validate(four, cat, arts); len(p) != 1 || !strings.Contains(p[0], "at most 3") {
		t.Errorf("4 cases in one subcategory: %v", p)
	}
}
