package aigw

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

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
	return newRedactor(reference...).redact(text)
}

// redactor holds a reference's shingles and short sentences, built once per grade and
// applied to the feedback and to every criterion's comment. Words are numbered by their
// normalised form, so shingles are compared as arrays of numbers, not joined strings.
type redactor struct {
	ids       map[string]int32
	grams     map[[shingle]int32]struct{}
	sentences map[[shingle - 1]int32]struct{} // 5 to 7 words, the rest -1
}

func newRedactor(reference ...string) *redactor {
	r := &redactor{ids: map[string]int32{}, grams: map[[shingle]int32]struct{}{}, sentences: map[[shingle - 1]int32]struct{}{}}
	var buf []byte
	id := func(w string) int32 {
		buf = normWord(buf[:0], w)
		n, ok := r.ids[string(buf)]
		if !ok {
			n = int32(len(r.ids))
			r.ids[string(buf)] = n
		}
		return n
	}
	for _, ref := range reference {
		// A shingle never spans two sources.
		var seq []int32
		for _, w := range words(ref) {
			seq = append(seq, id(ref[w.start:w.end]))
		}
		for i := 0; i+shingle <= len(seq); i++ {
			r.grams[[shingle]int32(seq[i:i+shingle])] = struct{}{}
		}
		// Whole short sentences (fewer words than a shingle).
		for _, s := range strings.FieldsFunc(ref, isSentenceEnd) {
			ws := words(s)
			if len(ws) >= 5 && len(ws) < shingle {
				key := [shingle - 1]int32{-1, -1, -1, -1, -1, -1, -1}
				for i, w := range ws {
					key[i] = id(s[w.start:w.end])
				}
				r.sentences[key] = struct{}{}
			}
		}
	}
	return r
}

func isSentenceEnd(c rune) bool {
	return c == '.' || c == '?' || c == '!' || c == ';' || c == '\n'
}

func (r *redactor) redact(text string) string {
	if len(r.ids) == 0 {
		return text
	}
	tw := words(text)
	seq := make([]int32, len(tw)) // -1: not a word of the reference
	var buf []byte
	for i, w := range tw {
		buf = normWord(buf[:0], text[w.start:w.end])
		if n, ok := r.ids[string(buf)]; ok {
			seq[i] = n
		} else {
			seq[i] = -1
		}
	}
	hit := make([]bool, len(tw))
	mark := func(i, n int) {
		for j := i; j < i+n; j++ {
			hit[j] = true
		}
	}
	for i := 0; i+shingle <= len(seq); i++ {
		if !allKnown(seq[i : i+shingle]) {
			continue
		}
		if _, ok := r.grams[[shingle]int32(seq[i:i+shingle])]; ok {
			mark(i, shingle)
		}
	}
	if len(r.sentences) > 0 {
		for n := 5; n < shingle; n++ {
			for i := 0; i+n <= len(seq); i++ {
				if !allKnown(seq[i : i+n]) {
					continue
				}
				key := [shingle - 1]int32{-1, -1, -1, -1, -1, -1, -1}
				copy(key[:], seq[i:i+n])
				if _, ok := r.sentences[key]; ok {
					mark(i, n)
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

func allKnown(seq []int32) bool {
	for _, n := range seq {
		if n < 0 {
			return false
		}
	}
	return true
}

// word is the byte span of one word (letters and digits) of a text.
type word struct{ start, end int }

func words(s string) []word {
	out := make([]word, 0, len(s)/6)
	start := -1
	for i, r := range s {
		isWord := r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') ||
			r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r))
		if isWord && start < 0 {
			start = i
		} else if !isWord && start >= 0 {
			out = append(out, word{start, i})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, word{start, len(s)})
	}
	return out
}

// normWord appends w to buf lowered and with the Romanian diacritics folded
// (ă â → a, î → i, ș ş → s, ț ţ → t).
func normWord(buf []byte, w string) []byte {
	for _, r := range w {
		if r < utf8.RuneSelf {
			if r >= 'A' && r <= 'Z' {
				r += 'a' - 'A'
			}
			buf = append(buf, byte(r))
			continue
		}
		switch r = unicode.ToLower(r); r {
		case 'ă', 'â':
			r = 'a'
		case 'î':
			r = 'i'
		case 'ș', 'ş':
			r = 's'
		case 'ț', 'ţ':
			r = 't'
		}
		buf = utf8.AppendRune(buf, r)
	}
	return buf
}
