package prompts

import (
	"regexp"
	"strconv"
	"strings"
)

// Problem is one legal problem of a case and its share of the 50 analysis points (2.2).
type Problem struct {
	Text   string
	Points int
}

var (
	// "Problema: …?" or "Problemele: (1) …; (2) …" / "Probleme: a, b și c" in the
	// introduction of a model answer (sql/seed/cases/FORMAT.md, the generation prompt).
	problemsRe = regexp.MustCompile(`(?s)\bProblem(?:a|ele|e)\s*:\s*(.+?)(?:\n\s*\n|\z)`)
	numberedRe = regexp.MustCompile(`\((\d+)\)`)
)

// Problems reads the legal problems a model answer states in its introduction and gives
// each its weight in the 50 analysis points: the first (main) problem two shares, every
// other one share, whole points, the remainder to the main problem. The weights are the
// server's, taken from the reference, so the model does not choose them per grade.
func Problems(modelAnswer string) []Problem {
	m := problemsRe.FindStringSubmatch(modelAnswer)
	var texts []string
	if m != nil {
		stated := strings.TrimSpace(m[1])
		// The statement ends with the introduction's paragraph or the first sentence that
		// is not a question list ("Premisa majoră." starts a new paragraph in the seeds).
		if i := strings.Index(stated, "\n"); i >= 0 {
			stated = stated[:i]
		}
		if parts := numbered(stated); len(parts) > 0 {
			texts = parts
		} else if strings.HasPrefix(m[0], "Problema") {
			texts = []string{strings.TrimRight(stated, ".")}
		} else {
			// "Probleme: a, b și c" — a list without numbers.
			stated = strings.TrimRight(stated, ".")
			if i := strings.LastIndex(stated, " și "); i >= 0 {
				stated = stated[:i] + ", " + stated[i+len(" și "):]
			}
			for _, p := range strings.Split(stated, ",") {
				if p = strings.TrimSpace(p); p != "" {
					texts = append(texts, p)
				}
			}
		}
	}
	if len(texts) == 0 {
		texts = []string{"problema juridică a speței"}
	}
	shares := len(texts) + 1
	if len(texts) == 1 {
		shares = 1
	}
	out := make([]Problem, len(texts))
	given := 0
	for i, t := range texts {
		p := 50 / shares
		if i == 0 && len(texts) > 1 {
			p = 2 * 50 / shares
		}
		out[i] = Problem{Text: t, Points: p}
		given += p
	}
	out[0].Points += 50 - given
	return out
}

// numbered splits "(1) a; (2) b" at the markers numbered 1, 2, 3… in turn, so an
// "alin. (2)" inside a problem is not taken for a marker.
func numbered(s string) []string {
	var cuts [][2]int
	next := 1
	for _, m := range numberedRe.FindAllStringSubmatchIndex(s, -1) {
		if s[m[2]:m[3]] == strconv.Itoa(next) && !strings.HasSuffix(strings.TrimSpace(s[:m[0]]), "alin.") {
			cuts = append(cuts, [2]int{m[0], m[1]})
			next++
		}
	}
	var out []string
	for i, c := range cuts {
		end := len(s)
		if i+1 < len(cuts) {
			end = cuts[i+1][0]
		}
		if p := strings.Trim(strings.TrimSpace(s[c[1]:end]), ";,."); p != "" {
			out = append(out, p)
		}
	}
	return out
}
