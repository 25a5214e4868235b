package seed

import (
	"fmt"
	"strings"
	"testing"

	"casus/server/internal/catalog"
)

// TestGrile validates the shipped grile (sql/seed/grile/*.yaml) against every ✔ rule of
// FORMAT.md: each grilă by itself (code, domain, category, subcategory, level, law_as_of,
// statement, options, correct set, explanations that cite existing articles and agree with
// the correct set), no duplicate codes or statements, and the coverage of each domain.
func TestGrile(t *testing.T) {
	items, err := LoadGrile()
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
	for _, p := range ValidateGrile(items, cat, arts) {
		t.Error(p)
	}
	for _, p := range GrileCoverage(items, cat, []string{"civil", "penal", "constitutional"}) {
		t.Error(p)
	}
}

func goodGrila() Grila {
	return Grila{
		Code: "GCIV001", Domain: "civil", File: "civil", CategoryID: "legea_civila", Subcategory: "Izvoarele dreptului civil",
		Level: "Mediu", LawAsOf: "2026-11-01",
		Statement: "Potrivit Codului civil, uzanțele:",
		Options: map[string]string{
			"a": "se aplică, în cazurile neprevăzute de lege, înaintea dispozițiilor privitoare la situații asemănătoare;",
			"b": "se aplică doar dacă sunt conforme ordinii publice și bunelor moravuri;",
			"c": "trebuie dovedite întotdeauna de partea care le invocă, chiar dacă sunt publicate.",
		},
		Correct: []string{"a", "b"},
		Explanations: map[string]string{
			"a": "Corect: art. 1 alin. (2) C.civ. — în cazurile neprevăzute de lege se aplică uzanțele.",
			"b": "Corect: art. 1 alin. (4) C.civ. — se aplică numai uzanțele conforme ordinii publice și bunelor moravuri.",
			"c": "Greșit: art. 1 alin. (5) C.civ. — uzanțele publicate sunt prezumate că există, până la proba contrară.",
		},
	}
}

func cloneGrila(g Grila) Grila {
	c := g
	c.Options, c.Explanations = map[string]string{}, map[string]string{}
	for k, v := range g.Options {
		c.Options[k] = v
	}
	for k, v := range g.Explanations {
		c.Explanations[k] = v
	}
	c.Correct = append([]string(nil), g.Correct...)
	return c
}

// The validator catches what it promises to catch, one rule at a time.
func TestValidateGrileRejectsBadGrile(t *testing.T) {
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	arts, err := ArticleIndex()
	if err != nil {
		t.Fatal(err)
	}
	good := goodGrila()
	if p := ValidateGrile([]Grila{good}, cat, arts); len(p) != 0 {
		t.Fatalf("good grilă rejected: %v", p)
	}
	mutations := map[string]func(*Grila){
		"code format":          func(g *Grila) { g.Code = "GCIV01" },
		"code prefix":          func(g *Grila) { g.Code = "GPEN001" },
		"domain":               func(g *Grila) { g.Domain = "roman" },
		"domain of file":       func(g *Grila) { g.File = "penal" },
		"unknown category":     func(g *Grila) { g.CategoryID = "nope" },
		"other domain":         func(g *Grila) { g.CategoryID = "drepturi_fundamentale" },
		"catch-all":            func(g *Grila) { g.CategoryID = "altele_civil" },
		"subcategory":          func(g *Grila) { g.Subcategory = "Nu există" },
		"level":                func(g *Grila) { g.Level = "usor" },
		"law_as_of":            func(g *Grila) { g.LawAsOf = "1 noiembrie 2026" },
		"short statement":      func(g *Grila) { g.Statement = "Uzanțele sunt:" },
		"long statement":       func(g *Grila) { g.Statement = strings.Repeat("x", 600) + ":" },
		"statement end":        func(g *Grila) { g.Statement = "Potrivit Codului civil, uzanțele sunt" },
		"option missing":       func(g *Grila) { delete(g.Options, "c") },
		"fourth option":        func(g *Grila) { g.Options["d"] = "încă o variantă" },
		"option too short":     func(g *Grila) { g.Options["b"] = "x" },
		"option too long":      func(g *Grila) { g.Options["b"] = strings.Repeat("x", 401) },
		"options equal":        func(g *Grila) { g.Options["b"] = g.Options["a"] },
		"no correct":           func(g *Grila) { g.Correct = nil },
		"correct letter":       func(g *Grila) { g.Correct = []string{"d"} },
		"correct twice":        func(g *Grila) { g.Correct = []string{"a", "a", "b"} },
		"explanation missing":  func(g *Grila) { delete(g.Explanations, "b") },
		"explanation short":    func(g *Grila) { g.Explanations["c"] = "Greșit: art. 1." },
		"explanation long":     func(g *Grila) { g.Explanations["c"] += strings.Repeat(" x", 350) },
		"no citation":          func(g *Grila) { g.Explanations["c"] = "Greșit: uzanțele publicate sunt prezumate că există." },
		"missing article":      func(g *Grila) { g.Explanations["a"] = "Corect: art. 9999 C.civ. — în cazurile neprevăzute." },
		"unshipped act":        func(g *Grila) { g.Explanations["a"] = "Corect: art. 5 din Legea nr. 71/2011 — uzanțele se aplică." },
		"Corect for wrong":     func(g *Grila) { g.Explanations["c"] = strings.Replace(g.Explanations["c"], "Greșit:", "Corect:", 1) },
		"Greșit for right":     func(g *Grila) { g.Explanations["a"] = strings.Replace(g.Explanations["a"], "Corect:", "Greșit:", 1) },
		"no verdict":           func(g *Grila) { g.Explanations["b"] = strings.TrimPrefix(g.Explanations["b"], "Corect: ") },
		"correct set changed":  func(g *Grila) { g.Correct = []string{"a"} },
		"cedilla":              func(g *Grila) { g.Statement = "Potrivit Codului civil, uzanţele:" },
		"default code missing": func(g *Grila) { g.Explanations["a"] = "Corect: art. 3000 — în cazurile neprevăzute de lege." },
	}
	for name, mutate := range mutations {
		g := cloneGrila(good)
		mutate(&g)
		if p := ValidateGrile([]Grila{g}, cat, arts); len(p) == 0 {
			t.Errorf("%s: not caught", name)
		}
	}
	// Across grile: codes and statements (case and spaces ignored) are unique.
	other := cloneGrila(good)
	other.Code = "GCIV002"
	other.Statement = "  potrivit codului   CIVIL, uzanțele:"
	if p := ValidateGrile([]Grila{good, other}, cat, arts); len(p) != 1 || !strings.Contains(p[0], "same statement as GCIV001") {
		t.Errorf("duplicate statement: %v", p)
	}
	other.Statement = "Potrivit Codului civil, uzanțele publicate:"
	other.Code = good.Code
	if p := ValidateGrile([]Grila{good, other}, cat, arts); len(p) != 1 || !strings.Contains(p[0], "duplicate code") {
		t.Errorf("duplicate code: %v", p)
	}
	// The citations the app shows as badges: each article once, the code defaulting to the
	// domain, ranges by their ends.
	got, errs := ExplanationCitations("Corect: art. 1 alin. (2) C.civ. și art. 1 alin. (4); art. 53 din Constituție, art. 41–44.", "civil")
	want := "[{civil 1 art. 1 alin. (2) C.civ.} {constitutional 53 art. 53 din Constituție} {civil 41 Art. 41 C.civ.} {civil 44 Art. 44 C.civ.}]"
	if len(errs) != 0 || fmt.Sprint(got) != want {
		t.Errorf("citations %v %v, want %s", got, errs, want)
	}
}

func TestGrileCoverage(t *testing.T) {
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	// A domain covered as FORMAT.md asks: every category, 100 grile, levels 40/30/30.
	var items []Grila
	var cats []string
	for _, c := range cat.ByDomain["constitutional"] {
		if !c.CatchAll {
			cats = append(cats, c.ID)
		}
	}
	lv := []string{"Ușor", "Ușor", "Ușor", "Ușor", "Mediu", "Mediu", "Mediu", "Dificil", "Dificil", "Dificil"}
	for i := 0; i < 100; i++ {
		items = append(items, Grila{Code: fmt.Sprintf("GCON%03d", i), Domain: "constitutional", CategoryID: cats[i%len(cats)], Level: lv[i%10]})
	}
	if p := GrileCoverage(items, cat, []string{"constitutional"}); len(p) != 0 {
		t.Fatalf("covered domain rejected: %v", p)
	}
	if p := GrileCoverage(items[:99], cat, []string{"constitutional"}); len(p) != 1 || !strings.Contains(p[0], "99 grile") {
		t.Errorf("99 grile: %v", p)
	}
	var noFirst []Grila
	for _, g := range items {
		if g.CategoryID != cats[0] {
			noFirst = append(noFirst, g)
		}
	}
	for len(noFirst) < 100 {
		g := noFirst[0]
		g.Code += "x"
		noFirst = append(noFirst, g)
	}
	if p := GrileCoverage(noFirst, cat, []string{"constitutional"}); len(p) != 1 || !strings.Contains(p[0], cats[0]) {
		t.Errorf("uncovered category: %v", p)
	}
	skewed := append([]Grila(nil), items...)
	for i := range skewed {
		if skewed[i].Level == "Dificil" && i%20 != 7 { // keep 5 of 30
			skewed[i].Level = "Mediu"
		}
	}
	if p := GrileCoverage(skewed, cat, []string{"constitutional"}); len(p) != 1 || !strings.Contains(p[0], "Dificil") {
		t.Errorf("Dificil under 20%%: %v", p)
	}
	if p := GrileCoverage(items, cat, []string{"constitutional", "penal"}); len(p) == 0 || !strings.Contains(p[0], "penal: 0 grile") {
		t.Errorf("absent domain: %v", p)
	}
}
