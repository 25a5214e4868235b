package seed

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"gopkg.in/yaml.v3"

	"casus/server/internal/catalog"
	"casus/server/internal/lawcodes"
	casussql "casus/sql"
)

// Grila is one multiple-choice question as written in sql/seed/grile/<domain>.yaml (see
// FORMAT.md there).
type Grila struct {
	Code         string            `yaml:"code" json:"code"`
	Domain       string            `yaml:"domain" json:"domain"`
	CategoryID   string            `yaml:"category_id" json:"category_id"`
	Subcategory  string            `yaml:"subcategory" json:"subcategory"`
	Level        string            `yaml:"level" json:"level"`
	LawAsOf      string            `yaml:"law_as_of" json:"law_as_of"`
	Statement    string            `yaml:"statement" json:"statement"`
	Options      map[string]string `yaml:"options" json:"options"`
	Correct      []string          `yaml:"correct" json:"correct"`
	Explanations map[string]string `yaml:"explanations" json:"explanations"`
	File         string            `yaml:"-" json:"-"` // the file it came from (its domain)
}

// Letters are the option keys of every grilă, in order.
var Letters = []string{"a", "b", "c"}

// GrileFiles maps each domain to its grile file.
var GrileFiles = map[string]string{"civil": "civil.yaml", "penal": "penal.yaml", "constitutional": "constitutional.yaml"}

var grilaCodeRe = regexp.MustCompile(`^G(CIV|PEN|CON)\d{3}$`)

// LoadGrile reads the shipped grile files; a file that is not there is skipped (the three
// are written separately).
func LoadGrile() ([]Grila, error) {
	var all []Grila
	for _, d := range catalog.Domains {
		file, ok := GrileFiles[d.Code]
		if !ok {
			continue
		}
		b, err := fs.ReadFile(casussql.Seed, "seed/grile/"+file)
		if err != nil {
			if strings.Contains(err.Error(), "file does not exist") {
				continue
			}
			return nil, err
		}
		var items []Grila
		if err := yaml.Unmarshal(b, &items); err != nil {
			return nil, fmt.Errorf("seed/grile/%s: %w", file, err)
		}
		for i := range items {
			items[i].File = d.Code
		}
		all = append(all, items...)
	}
	return all, nil
}

// GrilaCitation is an article an explanation cites, with the words that cite it.
type GrilaCitation struct {
	Code    string `json:"code"`
	Article string `json:"article"`
	Label   string `json:"label"`
}

// ExplanationCitations lists the articles an explanation cites (each once, in order), the
// code defaulting to domain; errs names citations of acts that are not shipped.
func ExplanationCitations(text, domain string) ([]GrilaCitation, []string) {
	var out []GrilaCitation
	var errs []string
	seen := map[string]bool{}
	for _, m := range lawcodes.CitationSpans(text) {
		cited, e := Citations(text[m[0]:m[1]], domain)
		errs = append(errs, e...)
		for i, c := range cited {
			if seen[c.Code+" "+c.Number] {
				continue
			}
			seen[c.Code+" "+c.Number] = true
			label := strings.TrimRight(strings.TrimSpace(text[m[0]:m[1]]), ",;")
			if i > 0 || len(cited) > 1 { // a range: each end by itself
				label = lawcodes.FormatReference(c.Code, c.Number)
			}
			out = append(out, GrilaCitation{Code: c.Code, Article: c.Number, Label: label})
		}
	}
	return out, errs
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

// foldStatement is the statement compared for duplicates: lower case, spaces collapsed.
func foldStatement(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// ValidateGrile checks every ✔ rule of sql/seed/grile/FORMAT.md that concerns single grile
// and their uniqueness; GrileCoverage checks the counts. One message per problem.
func ValidateGrile(items []Grila, cat *catalog.Catalog, articles map[string]map[string]bool) []string {
	var problems []string
	codes := map[string]bool{}
	statements := map[string]string{}
	for _, g := range items {
		for _, p := range grilaProblems(g, cat, articles) {
			problems = append(problems, g.Code+": "+p)
		}
		if codes[g.Code] {
			problems = append(problems, g.Code+": duplicate code")
		}
		codes[g.Code] = true
		if f := foldStatement(g.Statement); f != "" {
			if other, dup := statements[f]; dup {
				problems = append(problems, fmt.Sprintf("%s: same statement as %s", g.Code, other))
			} else {
				statements[f] = g.Code
			}
		}
	}
	return problems
}

// grilaProblems is what is wrong with one grilă by itself.
func grilaProblems(g Grila, cat *catalog.Catalog, articles map[string]map[string]bool) []string {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	prefix := map[string]string{"civil": "CIV", "penal": "PEN", "constitutional": "CON"}[g.Domain]
	if m := grilaCodeRe.FindStringSubmatch(g.Code); m == nil {
		bad("code is not G + CIV|PEN|CON + 3 digits")
	} else if m[1] != prefix {
		bad("code prefix %s does not match domain %s", m[1], g.Domain)
	}
	if prefix == "" {
		bad("domain %q", g.Domain)
	} else if g.File != "" && g.Domain != g.File {
		bad("domain %s in the %s file", g.Domain, g.File)
	}
	if cat != nil {
		category, ok := cat.Category(g.CategoryID)
		switch {
		case !ok:
			bad("unknown category %q", g.CategoryID)
		case category.Domain != g.Domain:
			bad("category %q is not in domain %s", g.CategoryID, g.Domain)
		case category.CatchAll:
			bad("grile belong to a real category, not %q", category.Name)
		case !category.HasSubcategory(g.Subcategory):
			bad("category %q has no subcategory %q", g.CategoryID, g.Subcategory)
		}
	}
	if !levels[g.Level] {
		bad("level %q (Ușor, Mediu or Dificil)", g.Level)
	}
	if _, err := time.Parse(time.DateOnly, g.LawAsOf); err != nil {
		bad("law_as_of %q is not a date (YYYY-MM-DD)", g.LawAsOf)
	}
	st := strings.TrimSpace(g.Statement)
	if n := runeLen(st); n < 20 || n > 600 {
		bad("statement has %d characters (20–600)", n)
	}
	if !strings.HasSuffix(st, ":") && !strings.HasSuffix(st, "?") {
		bad(`statement ends with neither ":" nor "?"`)
	}
	if len(g.Options) != 3 {
		bad("%d options, want exactly a, b, c", len(g.Options))
	}
	seenOption := map[string]string{}
	for _, l := range Letters {
		o, ok := g.Options[l]
		if !ok {
			bad("option %s is missing", l)
			continue
		}
		if n := runeLen(strings.TrimSpace(o)); n < 2 || n > 400 {
			bad("option %s has %d characters (2–400)", l, n)
		}
		if other, dup := seenOption[strings.TrimSpace(o)]; dup {
			bad("options %s and %s are equal", other, l)
		}
		seenOption[strings.TrimSpace(o)] = l
	}
	correct := map[string]bool{}
	for _, l := range g.Correct {
		switch {
		case l != "a" && l != "b" && l != "c":
			bad("correct names %q (a, b or c)", l)
		case correct[l]:
			bad("correct names %s twice", l)
		}
		correct[l] = true
	}
	if n := len(g.Correct); n < 1 || n > 3 {
		bad("%d correct options (1–3)", n)
	}
	if len(g.Explanations) != 3 {
		bad("%d explanations, want one for each of a, b, c", len(g.Explanations))
	}
	for _, l := range Letters {
		e, ok := g.Explanations[l]
		if !ok {
			bad("explanation %s is missing", l)
			continue
		}
		e = strings.TrimSpace(e)
		if n := runeLen(e); n < 20 || n > 700 {
			bad("explanation %s has %d characters (20–700)", l, n)
		}
		switch {
		case correct[l] && !strings.HasPrefix(e, "Corect:"):
			bad(`explanation %s must start with "Corect:" (%s is correct)`, l, l)
		case !correct[l] && !strings.HasPrefix(e, "Greșit:"):
			bad(`explanation %s must start with "Greșit:" (%s is wrong)`, l, l)
		}
		cited, errs := ExplanationCitations(e, g.Domain)
		for _, err := range errs {
			bad("explanation %s: %s", l, err)
		}
		if len(cited) == 0 {
			bad("explanation %s cites no article", l)
		}
		for _, c := range cited {
			if !articles[c.Code][c.Article] {
				bad("explanation %s cites %s, which is not in the shipped code", l, lawcodes.FormatReference(c.Code, c.Article))
			}
		}
	}
	if strings.ContainsAny(g.Statement+strings.Join(mapValues(g.Options), "")+strings.Join(mapValues(g.Explanations), ""), "şţŞŢ") {
		bad("uses cedilla ş/ţ instead of comma-below ș/ț")
	}
	return problems
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, l := range Letters {
		out = append(out, m[l])
	}
	return out
}

// MinGrilePerDomain is the size #20 promises for each domain.
const MinGrilePerDomain = 100

// GrileCoverage checks the counts of FORMAT.md: at least MinGrilePerDomain per domain,
// every non-catch-all category of the domain covered, every level present and none under
// 20 % of the domain's grile.
func GrileCoverage(items []Grila, cat *catalog.Catalog, domains []string) []string {
	var problems []string
	perDomain := map[string]int{}
	perCategory := map[string]int{}
	perLevel := map[string]map[string]int{}
	for _, g := range items {
		perDomain[g.Domain]++
		perCategory[g.CategoryID]++
		if perLevel[g.Domain] == nil {
			perLevel[g.Domain] = map[string]int{}
		}
		perLevel[g.Domain][g.Level]++
	}
	for _, d := range domains {
		if n := perDomain[d]; n < MinGrilePerDomain {
			problems = append(problems, fmt.Sprintf("%s: %d grile, want at least %d", d, n, MinGrilePerDomain))
		}
		for _, c := range cat.ByDomain[d] {
			if !c.CatchAll && perCategory[c.ID] == 0 {
				problems = append(problems, fmt.Sprintf("%s: category %s (%s) has no grilă", d, c.ID, c.Name))
			}
		}
		for _, l := range []string{"Ușor", "Mediu", "Dificil"} {
			if n := perLevel[d][l]; n*5 < perDomain[d] || n == 0 {
				problems = append(problems, fmt.Sprintf("%s: %d grile of level %s, want at least 20%% of %d", d, n, l, perDomain[d]))
			}
		}
	}
	return problems
}

// grilaRow is a grilă as the database holds it.
type grilaRow struct {
	options, correct, explanations []string
	citations                      []byte
}

func toRow(g Grila) grilaRow {
	var r grilaRow
	cites := make([][]GrilaCitation, len(Letters))
	for i, l := range Letters {
		r.options = append(r.options, strings.TrimSpace(g.Options[l]))
		r.explanations = append(r.explanations, strings.TrimSpace(g.Explanations[l]))
		cites[i], _ = ExplanationCitations(g.Explanations[l], g.Domain)
		if cites[i] == nil {
			cites[i] = []GrilaCitation{}
		}
	}
	r.correct = append([]string(nil), g.Correct...)
	sort.Strings(r.correct)
	r.citations, _ = json.Marshal(cites)
	return r
}

func loadGrile(ctx context.Context, tx pgx.Tx) (string, int, error) {
	items, err := LoadGrile()
	if err != nil {
		return "", 0, err
	}
	same, err := unchanged(ctx, tx, "grile", items)
	if err != nil || same {
		return "unchanged", 0, err
	}
	return SeedGrile(ctx, tx, items)
}

// SeedGrile upserts the grile by code and retires the ones the files no longer hold: a
// question nobody answered is deleted, one with attempts, cards or exam answers is kept
// for those students and never drawn again (retired_at). A grilă that breaks a rule the
// database holds (or that makes no sense: unknown category, missing options) is skipped
// and named in the message; TestGrile rejects such a file.
func SeedGrile(ctx context.Context, tx pgx.Tx, items []Grila) (string, int, error) {
	cat, err := catalog.Load()
	if err != nil {
		return "", 0, err
	}
	var skipped, codes []string
	n := 0
	for _, g := range items {
		if p := grilaProblems(g, cat, nil); len(structural(p)) > 0 || g.Code == "" {
			skipped = append(skipped, g.Code)
			continue
		}
		codes = append(codes, g.Code)
		r := toRow(g)
		if _, err := tx.Exec(ctx, `insert into public.grile_questions (code, domain, category_id, subcategory, level, law_as_of,
				statement, options, correct, explanations, citations)
			values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
			on conflict (code) do update set domain = excluded.domain, category_id = excluded.category_id,
				subcategory = excluded.subcategory, level = excluded.level, law_as_of = excluded.law_as_of,
				statement = excluded.statement, options = excluded.options, correct = excluded.correct,
				explanations = excluded.explanations, citations = excluded.citations, retired_at = null`,
			g.Code, g.Domain, g.CategoryID, g.Subcategory, g.Level, g.LawAsOf, strings.TrimSpace(g.Statement),
			r.options, r.correct, r.explanations, r.citations); err != nil {
			return "", 0, fmt.Errorf("grilă %s: %w", g.Code, err)
		}
		n++
	}
	if codes == nil {
		codes = []string{}
	}
	const used = `(exists (select 1 from public.grile_attempts a where a.question_id = q.id)
		or exists (select 1 from public.grile_cards c where c.question_id = q.id)
		or exists (select 1 from public.grile_exam_answers e where e.question_id = q.id))`
	del, err := tx.Exec(ctx, `delete from public.grile_questions q where not (q.code = any($1)) and not `+used, codes)
	if err != nil {
		return "", 0, fmt.Errorf("delete dropped grile: %w", err)
	}
	ret, err := tx.Exec(ctx, `update public.grile_questions q set retired_at = now()
		where q.retired_at is null and not (q.code = any($1))`, codes)
	if err != nil {
		return "", 0, fmt.Errorf("retire dropped grile: %w", err)
	}
	msg := fmt.Sprintf("loaded (%d dropped grile deleted, %d retired)", del.RowsAffected(), ret.RowsAffected())
	if len(skipped) > 0 {
		msg += "; skipped, breaking FORMAT.md: " + strings.Join(skipped, ", ")
	}
	return msg, n, nil
}

// structural keeps the problems that would make a grilă unusable in the app (the database
// would refuse it, or it cannot be shown or scored). Citations are checked by TestGrile
// only (the loader gets no article index).
func structural(problems []string) []string {
	var out []string
	for _, p := range problems {
		if strings.Contains(p, "cites") || strings.Contains(p, "cedilla") || strings.Contains(p, `must start with`) ||
			strings.Contains(p, "ends with neither") {
			continue
		}
		out = append(out, p)
	}
	return out
}
