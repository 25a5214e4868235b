package aigw

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"casus/server/internal/aigw/prompts"
)

var (
	// The total stands alone on its line ("PUNCTAJ TOTAL: 78/100", markdown emphasis
	// allowed): "XPUNCTAJ TOTAL: 99/100Y" and "100/1000" are not totals.
	totalRe = regexp.MustCompile(`(?m)^[ \t*#>_-]*PUNCTAJ TOTAL:[ \t*_]*(\d{1,3})[ \t]*/[ \t]*100[ \t*_.]*$`)
	// One rubric line: "2.2.1 Premisa majoră: 17/20 – reason" (code, optional label,
	// points/max, optional comment after a dash), anchored at the start of its line.
	criterionRe = regexp.MustCompile(`(?m)^[ \t*#>_-]*(1\.[1-6]|2\.1|2\.2\.[1-3])\.?(?:[ \t][^:\n]*)?:[ \t*_]*(\d{1,3})[ \t]*/[ \t]*(\d{1,3})\b[ \t*_]*(?:[–—:-][ \t]*(.*))?$`)
	bandRe      = regexp.MustCompile(`(?m)^[ \t*#>_-]*Calificativ:.*$`)
	sentenceEnd = regexp.MustCompile(`[.?!;\n]+`)
)

// criterionScore is one element of score_breakdown (see ARCHITECTURE.md).
type criterionScore struct {
	ID      string `json:"id"`
	Label   string `json:"label"`
	Score   int    `json:"score"`
	Max     int    `json:"max"`
	Comment string `json:"comment"`
}

// gradeResult is a grade whose arithmetic the server checked.
type gradeResult struct {
	criteria []criterionScore // the ten rubric items in order
	total    int              // their sum, equal to the stated total
}

// checkGrade parses the ten criterion lines and the total. Each score is clamped to its
// item's maximum; the grade holds only when all ten lines are there once, with the
// rubric's maxima, and their sum equals the single "PUNCTAJ TOTAL: N/100" line. Otherwise
// problem says what is wrong, in words the repair request can quote.
func checkGrade(text string) (g gradeResult, problem string) {
	totals := totalRe.FindAllStringSubmatch(text, -1)
	found := map[string]criterionScore{}
	for _, m := range criterionRe.FindAllStringSubmatch(text, -1) {
		for _, cr := range prompts.Criteria {
			if cr.Code != m[1] {
				continue
			}
			if _, dup := found[cr.Code]; dup {
				return g, fmt.Sprintf("linia %s apare de mai multe ori", cr.Code)
			}
			got, _ := strconv.Atoi(m[2])
			max, _ := strconv.Atoi(m[3])
			if max != cr.Max {
				return g, fmt.Sprintf("linia %s are maximul %d în loc de %d", cr.Code, max, cr.Max)
			}
			found[cr.Code] = criterionScore{ID: cr.Code, Label: cr.Label, Score: min(got, cr.Max), Max: cr.Max, Comment: strings.TrimSpace(m[4])}
		}
	}
	var missing []string
	for _, cr := range prompts.Criteria {
		c, ok := found[cr.Code]
		if !ok {
			missing = append(missing, cr.Code)
			continue
		}
		g.criteria = append(g.criteria, c)
		g.total += c.Score
	}
	switch {
	case len(missing) > 0:
		return gradeResult{}, "lipsesc liniile " + strings.Join(missing, ", ")
	case len(totals) == 0:
		return gradeResult{}, "lipsește linia „PUNCTAJ TOTAL: N/100”"
	case len(totals) > 1:
		return gradeResult{}, "linia „PUNCTAJ TOTAL” apare de mai multe ori"
	}
	stated, _ := strconv.Atoi(totals[0][1])
	if stated != g.total {
		return gradeResult{}, fmt.Sprintf("suma celor zece linii este %d, iar totalul declarat %d", g.total, stated)
	}
	return g, ""
}

// band is the rubric's qualifier of a total.
func band(total int) string {
	switch {
	case total >= 90:
		return "Excelent"
	case total >= 80:
		return "Foarte bine"
	case total >= 70:
		return "Bine"
	case total >= 60:
		return "Satisfăcător"
	}
	return "Nesatisfăcător"
}

// withBand writes the band of the computed total into the grade text: the model's own
// "Calificativ:" line is replaced, or one is added after the total.
func withBand(text string, total int) string {
	line := "Calificativ: " + band(total)
	if bandRe.MatchString(text) {
		done := false
		return bandRe.ReplaceAllStringFunc(text, func(string) string {
			if done {
				return ""
			}
			done = true
			return line
		})
	}
	loc := totalRe.FindStringIndex(text)
	if loc == nil {
		return text + "\n" + line
	}
	return text[:loc[1]] + "\n" + line + text[loc[1]:]
}

// shingle is how many consecutive words of the reference make a quotation.
const shingle = 8

// redactReference removes from a grade text every passage that quotes the hidden
// reference: any run of at least `shingle` consecutive words found in the reference, and
// any whole sentence of it of five words or more. Words compare case- and
// diacritics-insensitively, so a quotation without diacritics is caught too.
func redactReference(text string, reference ...string) string {
	var refWords []string
	for _, r := range reference {
		for _, w := range words(r) {
			refWords = append(refWords, w.norm)
		}
		refWords = append(refWords, "\x00") // no shingle spans two sources
	}
	if len(refWords) == 0 {
		return text
	}
	grams := map[string]bool{}
	for i := 0; i+shingle <= len(refWords); i++ {
		grams[strings.Join(refWords[i:i+shingle], " ")] = true
	}
	// Whole short sentences (fewer words than a shingle) of the reference.
	sentences := map[string]bool{}
	for _, r := range reference {
		for _, s := range sentenceEnd.Split(r, -1) {
			ws := words(s)
			if len(ws) >= 5 && len(ws) < shingle {
				sentences[joinNorm(ws)] = true
			}
		}
	}
	tw := words(text)
	hit := make([]bool, len(tw))
	for i := 0; i+shingle <= len(tw); i++ {
		if grams[joinNorm(tw[i:i+shingle])] {
			for j := i; j < i+shingle; j++ {
				hit[j] = true
			}
		}
	}
	for n := 5; n < shingle; n++ {
		for i := 0; i+n <= len(tw); i++ {
			if sentences[joinNorm(tw[i:i+n])] {
				for j := i; j < i+n; j++ {
					hit[j] = true
				}
			}
		}
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(tw); i++ {
		if !hit[i] {
			continue
		}
		j := i
		for j+1 < len(tw) && hit[j+1] {
			j++
		}
		b.WriteString(text[last:tw[i].start])
		b.WriteString("[…]")
		last = tw[j].end
		i = j
	}
	b.WriteString(text[last:])
	return b.String()
}

type word struct {
	norm       string
	start, end int
}

var fold = strings.NewReplacer("ă", "a", "â", "a", "î", "i", "ș", "s", "ş", "s", "ț", "t", "ţ", "t")

func words(s string) []word {
	var out []word
	start := -1
	for i, r := range s + " " {
		isWord := unicode.IsLetter(r) || unicode.IsDigit(r)
		if isWord && start < 0 {
			start = i
		} else if !isWord && start >= 0 {
			out = append(out, word{fold.Replace(strings.ToLower(s[start:i])), start, i})
			start = -1
		}
	}
	return out
}

func joinNorm(ws []word) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.norm
	}
	return strings.Join(parts, " ")
}
