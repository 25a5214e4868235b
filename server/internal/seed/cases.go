package seed

import (
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"casus/server/internal/catalog"
	"casus/server/internal/lawcodes"
	casussql "casus/sql"
)

// Case is one curriculum case as written in sql/seed/cases/<domain>.yaml (see FORMAT.md).
type Case struct {
	Code            string   `yaml:"code"`
	Domain          string   `yaml:"domain"`
	CategoryID      string   `yaml:"category_id"`
	Subcategory     string   `yaml:"subcategory"`
	Level           string   `yaml:"level"`
	Week            int      `yaml:"week"`
	Title           string   `yaml:"title"`
	LegalProblem    string   `yaml:"legal_problem"`
	CaseDescription string   `yaml:"case_description"`
	Question        string   `yaml:"question"`
	LawAsOf         string   `yaml:"law_as_of"`
	Articles        []string `yaml:"articles"`
	CrossReferences []string `yaml:"cross_references"`
	AnalysisSteps   []string `yaml:"analysis_steps"`
	Hints           []string `yaml:"hints"`
	ModelAnswer     string   `yaml:"model_answer"`
	// DisputedPoints are the points on which more than one reading is defensible
	// (optional; FORMAT.md): the grader gives full marks to any accepted route.
	DisputedPoints []DisputedPoint `yaml:"disputed_points" json:"disputed_points,omitempty"`
}

// DisputedPoint is one disputed question of a case and the readings a grader accepts.
type DisputedPoint struct {
	Issue          string   `yaml:"issue" json:"issue"`
	AcceptedRoutes []string `yaml:"accepted_routes" json:"accepted_routes"`
	Chosen         string   `yaml:"chosen" json:"chosen"`
}

// LoadCases reads every shipped curriculum file.
func LoadCases() ([]Case, error) {
	var all []Case
	for _, d := range catalog.Domains {
		if d.File == "" {
			continue
		}
		b, err := fs.ReadFile(casussql.Seed, "seed/cases/"+d.File)
		if err != nil {
			if strings.Contains(err.Error(), "file does not exist") {
				continue
			}
			return nil, err
		}
		var cases []Case
		if err := yaml.Unmarshal(b, &cases); err != nil {
			return nil, fmt.Errorf("seed/cases/%s: %w", d.File, err)
		}
		all = append(all, cases...)
	}
	return all, nil
}

var (
	codeRe  = regexp.MustCompile(`^(CIV|PEN|CON)([1-9]|1[0-2])[A-Z]{3}$`)
	titleRe = regexp.MustCompile(`^Caz \d+: \S`)
	levels  = map[string]bool{"Ușor": true, "Mediu": true, "Dificil": true}
)

// Validate checks the curriculum against the catalogue and the codes: everything the
// content issue promises a newcomer. It returns one message per problem.
func Validate(cases []Case, cat *catalog.Catalog, articles map[string]map[string]bool) []string {
	var problems []string
	bad := func(c Case, format string, args ...any) {
		problems = append(problems, c.Code+": "+fmt.Sprintf(format, args...))
	}
	codes := map[string]bool{}
	perSub := map[string]int{}
	for _, c := range cases {
		if codes[c.Code] {
			bad(c, "duplicate code")
		}
		codes[c.Code] = true
		m := codeRe.FindStringSubmatch(c.Code)
		prefix := map[string]string{"civil": "CIV", "penal": "PEN", "constitutional": "CON"}[c.Domain]
		switch {
		case m == nil:
			bad(c, "code is not in the generator's format (CIV|PEN|CON + week + 3 letters)")
		case m[1] != prefix:
			bad(c, "code prefix %s does not match domain %s", m[1], c.Domain)
		case m[2] != fmt.Sprint(c.Week):
			bad(c, "code week %s differs from week %d", m[2], c.Week)
		}
		for i, d := range c.DisputedPoints {
			routes := 0
			for _, r := range d.AcceptedRoutes {
				if strings.TrimSpace(r) != "" {
					routes++
				}
			}
			if strings.TrimSpace(d.Issue) == "" || strings.TrimSpace(d.Chosen) == "" || routes < 2 || routes != len(d.AcceptedRoutes) {
				bad(c, "disputed_points[%d] needs an issue, at least two non-empty accepted_routes and chosen", i)
			}
		}
		category, ok := cat.Category(c.CategoryID)
		switch {
		case !ok:
			bad(c, "unknown category %q", c.CategoryID)
		case category.Domain != c.Domain:
			bad(c, "category %q is not in domain %s", c.CategoryID, c.Domain)
		case category.CatchAll:
			bad(c, "curriculum cases belong to a real category, not %q", category.Name)
		case !category.HasSubcategory(c.Subcategory):
			bad(c, "category %q has no subcategory %q", c.CategoryID, c.Subcategory)
		}
		perSub[c.CategoryID+"/"+c.Subcategory]++
		if !levels[c.Level] {
			bad(c, "level %q", c.Level)
		}
		if c.Week < 1 || c.Week > 12 {
			bad(c, "week %d", c.Week)
		}
		if !titleRe.MatchString(c.Title) {
			bad(c, "title %q lacks the 'Caz N:' prefix", c.Title)
		}
		if words := len(strings.Fields(c.CaseDescription)); words < 150 || words > 400 {
			bad(c, "case description has %d words (150–400)", words)
		}
		for field, v := range map[string]string{"legal_problem": c.LegalProblem, "question": c.Question, "model_answer": c.ModelAnswer} {
			if strings.TrimSpace(v) == "" {
				bad(c, "%s is empty", field)
			}
		}
		if n := len(c.AnalysisSteps); n < 3 || n > 6 {
			bad(c, "%d analysis steps (3–6)", n)
		}
		if n := len(c.Hints); n < 2 || n > 4 {
			bad(c, "%d hints (2–4)", n)
		}
		if n := len(c.Articles); n == 0 || n > MaxArticles {
			bad(c, "%d articles (1–%d)", n, MaxArticles)
		}
		if _, err := time.Parse(time.DateOnly, c.LawAsOf); err != nil {
			bad(c, "law_as_of %q is not a date (YYYY-MM-DD)", c.LawAsOf)
		}
		listed := map[string]bool{}
		for _, ref := range append(append([]string(nil), c.Articles...), c.CrossReferences...) {
			r, err := lawcodes.ParseReference(ref)
			if err != nil {
				bad(c, "%v", err)
				continue
			}
			if !articles[r.Code][r.Number] {
				bad(c, "%q cites an article that does not exist", ref)
			}
			if key := r.Code + " " + r.Number; listed[key] {
				bad(c, "%q is listed twice (articles and cross_references hold each article once)", ref)
			} else {
				listed[key] = true
			}
		}
		for _, p := range articleUse(c) {
			bad(c, "%s", p)
		}
		for _, p := range answerStructure(c.ModelAnswer) {
			bad(c, "%s", p)
		}
		for _, p := range stepProblems(c.AnalysisSteps) {
			bad(c, "%s", p)
		}
		if strings.ContainsAny(c.Title+c.LegalProblem+c.CaseDescription+c.Question+c.ModelAnswer+strings.Join(c.AnalysisSteps, "")+strings.Join(c.Hints, ""), "şţŞŢ") {
			bad(c, "uses cedilla ş/ţ instead of comma-below ș/ț")
		}
	}
	for key, n := range perSub {
		if n > 3 {
			problems = append(problems, fmt.Sprintf("%d cases in subcategory %s (at most 3)", n, key))
		}
	}
	return problems
}

// ArticleIndex lists every article number of every shipped code.
func ArticleIndex() (map[string]map[string]bool, error) {
	out := map[string]map[string]bool{}
	for _, c := range lawcodes.Codes {
		arts, err := lawcodes.Load(c)
		if err != nil {
			return nil, err
		}
		out[c.ID] = map[string]bool{}
		for _, a := range arts {
			out[c.ID][a.Number] = true
		}
	}
	return out, nil
}
