package seed

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"casus/server/internal/lawcodes"
	"casus/server/internal/modelanswer"
)

// MaxArticles caps a case's article list: what decides the case, not a catalogue (#16).
const MaxArticles = 10

var (
	qualificationRe = regexp.MustCompile(`(?m)^Calificarea juridică:\s*\S`)
	blockRe         = regexp.MustCompile(`(?m)^Problema (\d+):\s*\S`)
	generalRe       = regexp.MustCompile(`(?m)^Concluzie generală:\s*\S`)
)

// Citation is one article a model answer relies on (lawcodes.Citations, which the
// grader uses on students' texts too).
type Citation = lawcodes.Citation

// Citations lists the articles cited in text, the code defaulting to domain.
func Citations(text, domain string) ([]Citation, []string) { return lawcodes.Citations(text, domain) }

// answerStructure checks the model answer's skeleton (FORMAT.md): the qualification line,
// the announced problems, one "Problema k:" block per problem with its three premises in
// order, and the closing "Concluzie generală:".
func answerStructure(answer string) []string {
	var problems []string
	if !qualificationRe.MatchString(answer) {
		problems = append(problems, `model answer lacks a "Calificarea juridică:" line`)
	}
	// The grader weighs the problems with the same reader (prompts.Problems).
	list, ok := modelanswer.Parse(answer)
	announced := 0
	switch {
	case !ok || !list.Line:
		problems = append(problems, `model answer lacks a "Problemele juridice:" / "Problema juridică:" line`)
	case !list.Plural:
		announced = 1
	default:
		announced = len(list.Problems)
		if announced < 2 {
			problems = append(problems, `"Problemele juridice:" must number at least two problems "(1) … (2) …"; use "Problema juridică:" for one`)
		}
	}
	blocks := blockRe.FindAllStringSubmatchIndex(answer, -1)
	if announced > 0 && len(blocks) != announced {
		problems = append(problems, fmt.Sprintf("%d problems announced, %d \"Problema k:\" blocks", announced, len(blocks)))
	}
	for i, b := range blocks {
		if k, _ := strconv.Atoi(answer[b[2]:b[3]]); k != i+1 {
			problems = append(problems, fmt.Sprintf("block %d is numbered %d", i+1, k))
		}
		end := len(answer)
		if i+1 < len(blocks) {
			end = blocks[i+1][0]
		} else if g := generalRe.FindStringIndex(answer[b[0]:]); g != nil {
			end = b[0] + g[0]
		}
		body := answer[b[0]:end]
		last := -1
		for _, part := range []string{"Premisa majoră:", "Premisa minoră:", "Concluzia:"} {
			at := strings.Index(body, part)
			if at < 0 || at < last {
				problems = append(problems, fmt.Sprintf("Problema %d: %q missing or out of order", i+1, part))
				break
			}
			last = at
		}
	}
	if !generalRe.MatchString(answer) {
		problems = append(problems, `model answer lacks the closing "Concluzie generală:" paragraph`)
	} else if len(blocks) > 0 && generalRe.FindStringIndex(answer)[0] < blocks[len(blocks)-1][0] {
		problems = append(problems, `"Concluzie generală:" must follow the last problem`)
	}
	return problems
}

// forbiddenOpenings start a sentence that hands the student a conclusion; analysis steps
// are tasks or questions ("Verificați dacă…", "Stabiliți momentul…").
var forbiddenOpenings = []string{
	"Stabiliți că", "Concluzionați că", "Rețineți că", "Constatați că", "Observați că", "Arătați că",
	"Demonstrați că", "Explicați de ce", "Rețineți", "Notați că", "Subliniați că", "Deci", "Prin urmare",
	"Așadar", "Respingeți", "Admiteți",
}

// conclusoryWords give away a step's answer wherever they appear.
var conclusoryRe = regexp.MustCompile(`(?i)(^|[^\p{L}])(deci|prin urmare|așadar|rezultă că)([^\p{L}]|$)`)

func stepProblems(steps []string) []string {
	var problems []string
	for i, s := range steps {
		t := strings.TrimSpace(s)
		for _, f := range forbiddenOpenings {
			if strings.HasPrefix(strings.ToLower(t), strings.ToLower(f)) {
				problems = append(problems, fmt.Sprintf("step %d opens with %q (a conclusion, not a task)", i+1, f))
			}
		}
		if conclusoryRe.MatchString(t) {
			problems = append(problems, fmt.Sprintf("step %d states a conclusion (%q)", i+1, conclusoryRe.FindString(t)))
		}
	}
	return problems
}

// articleUse checks both directions between the article list and the model answer: every
// listed article is cited in the answer, and every article the answer cites is listed or
// declared in cross_references.
func articleUse(c Case) []string {
	var problems []string
	cited, errs := Citations(c.ModelAnswer, c.Domain)
	problems = append(problems, errs...)
	inAnswer := map[Citation]bool{}
	for _, ct := range cited {
		inAnswer[ct] = true
	}
	declared := map[Citation]bool{}
	for field, refs := range map[string][]string{"articles": c.Articles, "cross_references": c.CrossReferences} {
		for _, ref := range refs {
			r, err := lawcodes.ParseReference(ref)
			if err != nil {
				continue // reported by Validate
			}
			ct := Citation{Code: r.Code, Number: r.Number}
			if field == "articles" && !inAnswer[ct] {
				problems = append(problems, fmt.Sprintf("listed article %q is not cited in the model answer", ref))
			}
			if field == "cross_references" && !inAnswer[ct] {
				problems = append(problems, fmt.Sprintf("cross reference %q is not cited in the model answer", ref))
			}
			declared[ct] = true
		}
	}
	seen := map[Citation]bool{}
	for _, ct := range cited {
		if !declared[ct] && !seen[ct] {
			seen[ct] = true
			problems = append(problems, fmt.Sprintf("model answer cites %s but neither articles nor cross_references list it",
				lawcodes.FormatReference(ct.Code, ct.Number)))
		}
	}
	return problems
}
