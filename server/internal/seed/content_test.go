package seed

import (
	"fmt"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"casus/server/internal/catalog"
)

// MinCurriculumCases is the size #16 promises: at least 100 cases across the three files.
const MinCurriculumCases = 100

// TestCurriculum validates every shipped case against the catalogue, the content rules,
// the codes and the model-answer format (Validate), and the curriculum's coverage: at least
// MinCurriculumCases cases, every category of every catalogue (but the catch-all) with a
// case, each week 1–12 of each domain with at least two cases, and all three levels in
// every course.
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
	perCategory := map[string]int{}
	perWeek := map[string]map[int]int{}
	levels := map[string]map[string]bool{}
	for _, c := range cases {
		perCategory[c.CategoryID]++
		if perWeek[c.Domain] == nil {
			perWeek[c.Domain] = map[int]int{}
		}
		perWeek[c.Domain][c.Week]++
		if category, ok := cat.Category(c.CategoryID); ok {
			if levels[category.Course] == nil {
				levels[category.Course] = map[string]bool{}
			}
			levels[category.Course][c.Level] = true
		}
	}
	if len(cases) < MinCurriculumCases {
		t.Errorf("%d cases, want at least %d", len(cases), MinCurriculumCases)
	}
	courses := map[string]bool{}
	for _, d := range catalog.Domains {
		for _, category := range cat.ByDomain[d.Code] {
			if category.CatchAll {
				continue
			}
			courses[category.Course] = true
			if perCategory[category.ID] == 0 {
				t.Errorf("%s: category %s (%s) has no case", d.Code, category.ID, category.Name)
			}
		}
		if d.File == "" {
			continue
		}
		for w := 1; w <= 12; w++ {
			if n := perWeek[d.Code][w]; n < 2 {
				t.Errorf("%s: week %d has %d cases, want at least 2", d.Code, w, n)
			}
		}
	}
	for course := range courses {
		if len(levels[course]) != 3 {
			t.Errorf("course %s: levels %v, want Ușor, Mediu and Dificil", course, levels[course])
		}
	}
}

const goodAnswer = `Fapte esențiale: un minor de 17 ani a vândut un laptop fără încuviințare.
Calificarea juridică: contract de vânzare încheiat de un minor cu capacitate de exercițiu restrânsă.
Problemele juridice: (1) Este actul anulabil? (2) Ce se restituie?

Problema 1: Anulabilitatea
Premisa majoră: art. 41 alin. (2) și art. 44 alin. (1) C.civ. cer încuviințarea.
Premisa minoră: încuviințarea lipsește.
Concluzia: actul este anulabil.

Problema 2: Restituirea
Premisa majoră: potrivit art. 1647, incapabilul restituie în limita folosului.
Premisa minoră: banii au fost cheltuiți.
Concluzia: restituire limitată.

Concluzie generală: contractul se anulează, minorul restituie în limita folosului.`

// The validator itself must catch what it promises to catch.
func TestValidateRejectsBadCases(t *testing.T) {
	cat, _ := catalog.Load()
	arts, _ := ArticleIndex()
	good := Case{
		Code: "CIV5ABC", Domain: "civil", CategoryID: "legea_civila", Subcategory: "Izvoarele dreptului civil",
		Level: "Mediu", Week: 5, Title: "Caz 1: Un titlu", LegalProblem: "P.", Question: "Q?", ModelAnswer: goodAnswer,
		LawAsOf: "2026-11-01", CaseDescription: strings.Repeat("cuvânt ", 200),
		Articles:        []string{"Art. 41 alin. (2) C.civ.", "Art. 44 C.civ."},
		CrossReferences: []string{"Art. 1647 C.civ."},
		AnalysisSteps:   []string{"Verificați dacă actul cerea încuviințare.", "Stabiliți momentul încheierii.", "Ce trebuie restituit?"},
		Hints:           []string{"x", "y"},
	}
	if p := Validate([]Case{good}, cat, arts); len(p) != 0 {
		t.Fatalf("good case rejected: %v", p)
	}
	disputed := good
	disputed.DisputedPoints = []DisputedPoint{{Issue: "Menține instanța actul?", AcceptedRoutes: []string{"anulare, art. 44", "menținere, art. 45"}, Chosen: "menținere"}}
	if p := Validate([]Case{disputed}, cat, arts); len(p) != 0 {
		t.Fatalf("good disputed points rejected: %v", p)
	}
	replace := func(old, new string) func(*Case) {
		return func(c *Case) {
			if !strings.Contains(c.ModelAnswer, old) {
				t.Fatalf("mutation: %q not in the model answer", old)
			}
			c.ModelAnswer = strings.Replace(c.ModelAnswer, old, new, 1)
		}
	}
	mutations := map[string]func(*Case){
		"code format":        func(c *Case) { c.Code = "CIV5AB" },
		"code week":          func(c *Case) { c.Code = "CIV6ABC" },
		"unknown category":   func(c *Case) { c.CategoryID = "nope" },
		"subcategory":        func(c *Case) { c.Subcategory = "Nu există" },
		"other domain":       func(c *Case) { c.CategoryID = "drepturi_fundamentale" },
		"catch-all":          func(c *Case) { c.CategoryID = "altele_civil" },
		"level":              func(c *Case) { c.Level = "usor" },
		"title":              func(c *Case) { c.Title = "Un titlu" },
		"short text":         func(c *Case) { c.CaseDescription = "prea scurt" },
		"steps":              func(c *Case) { c.AnalysisSteps = c.AnalysisSteps[:2] },
		"hints":              func(c *Case) { c.Hints = nil },
		"missing article":    func(c *Case) { c.Articles = []string{"Art. 9999 C.civ."} },
		"bad reference":      func(c *Case) { c.Articles = []string{"articolul unu"} },
		"cedilla":            func(c *Case) { c.Question = "Ce faceţi?" },
		"empty answer":       func(c *Case) { c.ModelAnswer = " " },
		"no law_as_of":       func(c *Case) { c.LawAsOf = "" },
		"bad law_as_of":      func(c *Case) { c.LawAsOf = "1 noiembrie 2026" },
		"eleven articles":    func(c *Case) { c.Articles = strings.Split(strings.Repeat("Art. 41 C.civ.,", 11), ",")[:11] },
		"listed, not cited":  func(c *Case) { c.Articles = append(c.Articles, "Art. 1357 C.civ.") },
		"cited, not listed":  func(c *Case) { c.CrossReferences = nil },
		"cross ref unused":   func(c *Case) { c.CrossReferences = append(c.CrossReferences, "Art. 1350 C.civ.") },
		"cross ref missing":  func(c *Case) { c.CrossReferences = []string{"Art. 1647 C.civ.", "Art. 9999 C.civ."} },
		"listed twice":       func(c *Case) { c.CrossReferences = append(c.CrossReferences, "Art. 44 alin. (1) C.civ.") },
		"other code, unlist": replace("art. 1647", "art. 1647 și art. 44 Const."),
		"unshipped act":      replace("art. 1647", "art. 1647 și art. 5 din Legea nr. 71/2011"),
		"range end unlisted": replace("art. 1647", "art. 1647–1649"),
		"no qualification":   replace("Calificarea juridică:", "Calificare:"),
		"no problems line":   replace("Problemele juridice:", "Probleme:"),
		"one announced, two": replace("Problemele juridice: (1) Este actul anulabil? (2) Ce se restituie?", "Problema juridică: Este actul anulabil?"),
		"three announced":    replace("(2) Ce se restituie?", "(2) Ce se restituie? (3) Cine plătește?"),
		"block missing":      replace("Problema 2: Restituirea", "Restituirea"),
		"block misnumbered":  replace("Problema 2: Restituirea", "Problema 3: Restituirea"),
		"no major premise":   replace("Premisa majoră: potrivit", "Potrivit"),
		"no minor premise":   replace("Premisa minoră: încuviințarea", "Încuviințarea"),
		"no conclusion":      replace("Concluzia: restituire", "Restituire"),
		"premises reversed":  replace("Premisa majoră: art. 41 alin. (2) și art. 44 alin. (1) C.civ. cer încuviințarea.\nPremisa minoră: încuviințarea lipsește.", "Premisa minoră: încuviințarea lipsește.\nPremisa majoră: art. 41 alin. (2) și art. 44 alin. (1) C.civ. cer încuviințarea."),
		"no general":         replace("Concluzie generală:", "În concluzie:"),
		"step: Stabiliți că": func(c *Case) { c.AnalysisSteps[0] = "Stabiliți că actul este anulabil." },
		"step: Constatați":   func(c *Case) { c.AnalysisSteps[1] = "Constatați că lipsește încuviințarea." },
		"step: deci":         func(c *Case) { c.AnalysisSteps[2] = "Lipsește încuviințarea, deci actul e anulabil." },
		"step: Rețineți că":  func(c *Case) { c.AnalysisSteps[2] = "Rețineți că minorul a cheltuit banii." },
		"disputed, one route": func(c *Case) {
			c.DisputedPoints = []DisputedPoint{{Issue: "Menține instanța actul?", AcceptedRoutes: []string{"art. 45"}, Chosen: "art. 45"}}
		},
		"disputed, no choice": func(c *Case) {
			c.DisputedPoints = []DisputedPoint{{Issue: "Menține instanța actul?", AcceptedRoutes: []string{"anulare", "menținere"}}}
		},
	}
	for name, mutate := range mutations {
		c := good
		c.Articles = append([]string(nil), good.Articles...)
		c.CrossReferences = append([]string(nil), good.CrossReferences...)
		c.AnalysisSteps = append([]string(nil), good.AnalysisSteps...)
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

// Citations reads what students and authors write: detail after the number, the code
// suffix, superscript numbers and ranges.
func TestCitations(t *testing.T) {
	got, errs := Citations("potrivit art. 1357 alin. (1) C.civ., art. 112^1 C.pen., Art. 16 alin. (2) lit. b), "+
		"art. 53 din Constituție și art. 41–44", "penal")
	want := []Citation{{Code: "civil", Number: "1357"}, {Code: "penal", Number: "112^1"}, {Code: "penal", Number: "16"}, {Code: "constitutional", Number: "53"}, {Code: "penal", Number: "41"}, {Code: "penal", Number: "44"}}
	if len(errs) != 0 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v %v, want %v", got, errs, want)
	}
	if _, errs := Citations("art. 396 C.proc.fisc. și art. 5 din Legea nr. 71/2011 și art. 3 din Codul silvic", "penal"); len(errs) != 3 {
		t.Errorf("citations of acts that are not shipped: %v", errs)
	}
	// The named acts a case may rely on by article (#29): said, not linked, not an error.
	got, errs = Citations("art. 296 alin. (1) C.proc.pen., art. 29 alin. (1) din Legea nr. 47/1992, "+
		"art. 31 din O.G. nr. 2/2001, art. 8 din Legea nr. 554/2004 și art. 157 alin. (1)", "penal")
	if len(errs) != 0 || fmt.Sprint(got) != fmt.Sprint([]Citation{{Code: "penal", Number: "157"}}) {
		t.Errorf("named acts: got %v %v, want only art. 157 C.pen.", got, errs)
	}
}

// The optional disputed_points block of the case format is read as FORMAT.md spells it.
func TestDisputedPointsFormat(t *testing.T) {
	var cases []Case
	err := yaml.Unmarshal([]byte(`- code: CIV4MDL
  disputed_points:
    - issue: "Va menține instanța contractul (art. 45 C.civ.)?"
      accepted_routes:
        - "menținerea, dacă manoperele dolosive sunt dovedite (art. 45)"
        - "anularea, măsura fiind facultativă și de strictă interpretare"
      chosen: "menținerea, pe faptele date"
`), &cases)
	if err != nil || len(cases) != 1 || len(cases[0].DisputedPoints) != 1 {
		t.Fatalf("%v %+v", err, cases)
	}
	d := cases[0].DisputedPoints[0]
	if d.Issue != "Va menține instanța contractul (art. 45 C.civ.)?" || len(d.AcceptedRoutes) != 2 || d.Chosen != "menținerea, pe faptele date" {
		t.Fatalf("%+v", d)
	}
}
