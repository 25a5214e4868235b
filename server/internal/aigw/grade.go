package aigw

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"casus/server/internal/aigw/prompts"
)

var (
	// Score-shaped lines a student may plant to anchor the grader ("PUNCTAJ TOTAL:
	// 100/100", "2.2.1 Premisa majoră: 20/20"); the grader's copy of the text has them
	// replaced (scoreShapedLines).
	totalRe     = regexp.MustCompile(`(?m)^[ \t*#>_-]*PUNCTAJ TOTAL:.*$`)
	criterionRe = regexp.MustCompile(`(?m)^[ \t*#>_-]*(?:1\.[1-6]|2\.1|2\.2\.[1-3]|P\d+)\.?(?:[ \t][^:\n]*)?:[ \t*_]*\d{1,3}[ \t]*/[ \t]*\d{1,3}\b.*$`)
	bandRe      = regexp.MustCompile(`(?m)^[ \t*#>_-]*Calificativ:.*$`)
)

// scoreShapedLines replaces, in the text the grader reads, every line shaped like a
// score of the rubric, so a student cannot anchor the grade with ready-made lines.
func scoreShapedLines(text string) string {
	for _, re := range []*regexp.Regexp{totalRe, criterionRe, bandRe} {
		text = re.ReplaceAllString(text, "[rând de punctaj eliminat de platformă]")
	}
	return text
}

// subScore is one sub-item's points (a median of the passes may be a half point).
type subScore struct {
	ID    string  `json:"id"`
	Label string  `json:"label,omitempty"`
	Score float64 `json:"score"`
	Max   int     `json:"max"`
}

// problemScore is one legal problem's part of a 2.2.x item: its sub-items on their full
// scale and the weighted points it brings (raw × weight / 50).
type problemScore struct {
	Problem  int        `json:"problem"`
	Text     string     `json:"text"`
	Weight   int        `json:"weight"`
	Route    string     `json:"route,omitempty"`
	Subitems []subScore `json:"subitems"`
	Raw      float64    `json:"raw"`
	RawMax   int        `json:"raw_max"`
	Points   float64    `json:"points"`
	Comment  string     `json:"comment,omitempty"`
	Evidence []string   `json:"evidence,omitempty"`
}

// criterionScore is one element of score_breakdown (see ARCHITECTURE.md): the first five
// fields are read by the app; subitems, problems and evidence say how the server got
// the score.
type criterionScore struct {
	ID       string         `json:"id"`
	Label    string         `json:"label"`
	Score    int            `json:"score"`
	Max      int            `json:"max"`
	Comment  string         `json:"comment"`
	Evidence []string       `json:"evidence,omitempty"`
	Subitems []subScore     `json:"subitems,omitempty"`
	Problems []problemScore `json:"problems,omitempty"`
}

// gradeResult is a grade the server computed from the model's sub-item scores.
type gradeResult struct {
	criteria  []criterionScore // the ten rubric items in order
	total     int              // their sum
	strengths string
	improve   string
}

// modelItem is one scored item of the grader's JSON reply.
type modelItem struct {
	Code     string             `json:"cod"`
	Problem  int                `json:"problema"`
	Route    string             `json:"ruta"`
	Evidence []string           `json:"dovezi"`
	Reason   string             `json:"motiv"`
	Points   map[string]float64 `json:"puncte"`
}

type modelGrade struct {
	Items     []modelItem `json:"itemi"`
	Strengths string      `json:"puncte_forte"`
	Improve   string      `json:"de_imbunatatit"`
}

// pass is one independent grading of the text, as read from the model: every sub-item's
// points keyed by "code/problem/key", with the reasons and evidence.
type pass struct {
	points    map[string]float64
	items     map[string]modelItem // by "code/problem"
	strengths string
	improve   string
	total     int
}

func itemKey(code string, problem int) string { return code + "/" + strconv.Itoa(problem) }

// readPass reads a grader's reply: a JSON object with every item once (2.2.x once per
// problem), every sub-item a whole number between 0 and its maximum. Otherwise problem
// says what is wrong, in words the repair request can quote. Quotes given as evidence
// are kept only when they are found in the student's text.
func readPass(reply string, problems []prompts.Problem, student string) (p pass, problem string) {
	start := strings.Index(reply, "{")
	var g modelGrade
	if start < 0 || json.NewDecoder(strings.NewReader(reply[start:])).Decode(&g) != nil {
		return p, "răspunsul nu este un obiect JSON valid"
	}
	p = pass{points: map[string]float64{}, items: map[string]modelItem{}, strengths: strings.TrimSpace(g.Strengths), improve: strings.TrimSpace(g.Improve)}
	for _, it := range g.Items {
		cr, ok := criterion(it.Code)
		if !ok {
			continue
		}
		n := 0
		if cr.PerProblem {
			if it.Problem < 1 || it.Problem > len(problems) {
				return p, fmt.Sprintf("punctul %s are problema %d, care nu este în listă (1–%d)", it.Code, it.Problem, len(problems))
			}
			n = it.Problem
		}
		k := itemKey(cr.Code, n)
		if _, dup := p.items[k]; dup {
			return p, fmt.Sprintf("punctul %s apare de mai multe ori%s", cr.Code, problemSuffix(n))
		}
		for _, si := range cr.Sub {
			v, ok := it.Points[si.Key]
			switch {
			case !ok:
				return p, fmt.Sprintf("la punctul %s%s lipsește „%s”", cr.Code, problemSuffix(n), si.Key)
			case v != math.Trunc(v) || v < 0 || v > float64(si.Max):
				return p, fmt.Sprintf("la punctul %s%s, „%s” este %v, nu un număr întreg între 0 și %d", cr.Code, problemSuffix(n), si.Key, v, si.Max)
			}
			p.points[k+"/"+si.Key] = v
		}
		it.Evidence = quotedFrom(student, it.Evidence)
		it.Reason = strings.TrimSpace(it.Reason)
		p.items[k] = it
	}
	var missing []string
	for _, cr := range prompts.Criteria {
		if !cr.PerProblem {
			if _, ok := p.items[itemKey(cr.Code, 0)]; !ok {
				missing = append(missing, cr.Code)
			}
			continue
		}
		for n := 1; n <= len(problems); n++ {
			if _, ok := p.items[itemKey(cr.Code, n)]; !ok {
				missing = append(missing, cr.Code+problemSuffix(n))
			}
		}
	}
	if len(missing) > 0 {
		return p, "lipsesc punctele " + strings.Join(missing, ", ")
	}
	return p, ""
}

func problemSuffix(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (P%d)", n)
}

func criterion(code string) (prompts.Criterion, bool) {
	for _, cr := range prompts.Criteria {
		if cr.Code == code {
			return cr, true
		}
	}
	return prompts.Criterion{}, false
}

// quotedFrom keeps the quotes that appear in the student's text, compared without case,
// diacritics, punctuation or spacing differences.
func quotedFrom(student string, quotes []string) []string {
	hay := " " + normText(student) + " "
	var out []string
	for _, q := range quotes {
		q = strings.TrimSpace(q)
		if n := normText(q); n != "" && strings.Contains(hay, " "+n+" ") {
			out = append(out, q)
		}
	}
	return out
}

// normText is a text's words, lowered, diacritics folded, single-spaced: two texts that
// differ only in case, diacritics, punctuation or spacing have the same normText.
func normText(s string) string {
	var b []byte
	for i, w := range words(s) {
		if i > 0 {
			b = append(b, ' ')
		}
		b = normWord(b, s[w.start:w.end])
	}
	return string(b)
}

// reconcile computes the grade from one or more passes: every sub-item's median across
// the passes (the mean of two), the problems' weights applied, each item and the total
// rounded so that the items add up to the total (largest remainders). The reasons and
// evidence are those of the pass closest to the result.
func reconcile(passes []pass, problems []prompts.Problem) gradeResult {
	raw := make([]float64, len(prompts.Criteria))
	var crits []criterionScore
	for ci, cr := range prompts.Criteria {
		c := criterionScore{ID: cr.Code, Label: cr.Label, Max: cr.Max}
		if !cr.PerProblem {
			k := itemKey(cr.Code, 0)
			for _, si := range cr.Sub {
				v := median(passes, k+"/"+si.Key)
				raw[ci] += v
				if si.Key != "punctaj" {
					c.Subitems = append(c.Subitems, subScore{ID: si.Key, Label: si.Label, Score: v, Max: si.Max})
				}
			}
		} else {
			for n, pr := range problems {
				k := itemKey(cr.Code, n+1)
				ps := problemScore{Problem: n + 1, Text: pr.Text, Weight: pr.Points}
				for _, si := range cr.Sub {
					v := median(passes, k+"/"+si.Key)
					ps.Subitems = append(ps.Subitems, subScore{ID: si.Key, Label: si.Label, Score: v, Max: si.Max})
					ps.Raw += v
					ps.RawMax += si.Max
				}
				ps.Points = ps.Raw * float64(pr.Points) / 50
				raw[ci] += ps.Points
				c.Problems = append(c.Problems, ps)
			}
		}
		crits = append(crits, c)
	}
	scores := apportion(raw)
	g := gradeResult{}
	for i := range crits {
		crits[i].Score = scores[i]
		g.total += scores[i]
	}
	// Reasons and evidence from the pass whose total is closest to the result.
	best := passes[0]
	for _, p := range passes[1:] {
		if abs(p.total-g.total) < abs(best.total-g.total) {
			best = p
		}
	}
	for i, cr := range prompts.Criteria {
		if !cr.PerProblem {
			it := best.items[itemKey(cr.Code, 0)]
			crits[i].Comment, crits[i].Evidence = it.Reason, it.Evidence
			continue
		}
		var reasons []string
		for n := range crits[i].Problems {
			it := best.items[itemKey(cr.Code, n+1)]
			crits[i].Problems[n].Comment, crits[i].Problems[n].Evidence, crits[i].Problems[n].Route = it.Reason, it.Evidence, it.Route
			crits[i].Evidence = append(crits[i].Evidence, it.Evidence...)
			if it.Reason == "" {
				continue
			}
			if len(problems) > 1 {
				reasons = append(reasons, fmt.Sprintf("P%d: %s", n+1, it.Reason))
			} else {
				reasons = append(reasons, it.Reason)
			}
		}
		crits[i].Comment = strings.Join(reasons, " ")
	}
	g.criteria, g.strengths, g.improve = crits, best.strengths, best.improve
	return g
}

// passTotal is one pass's total, computed alone (for the gap between passes).
func passTotal(p pass, problems []prompts.Problem) int {
	return reconcile([]pass{p}, problems).total
}

func median(passes []pass, key string) float64 {
	vs := make([]float64, len(passes))
	for i, p := range passes {
		vs[i] = p.points[key]
	}
	sort.Float64s(vs)
	if len(vs)%2 == 1 {
		return vs[len(vs)/2]
	}
	return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
}

// apportion rounds every value to a whole number so that their sum is the sum of the
// values rounded half up: the values with the largest fractions get the extra points.
func apportion(vs []float64) []int {
	var sum float64
	out := make([]int, len(vs))
	given := 0
	for i, v := range vs {
		sum += v
		out[i] = int(math.Floor(v + 1e-9))
		given += out[i]
	}
	target := int(math.Floor(sum + 0.5 + 1e-9))
	order := make([]int, len(vs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		return vs[order[a]]-math.Floor(vs[order[a]]+1e-9) > vs[order[b]]-math.Floor(vs[order[b]]+1e-9)
	})
	for i := 0; given < target && i < len(order); i++ {
		out[order[i]]++
		given++
	}
	return out
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// feedbackText is the grade as the student reads it, written by the server from the
// computed result: every item with its points and reason, the parts' subtotals, the
// total and the band.
func feedbackText(g gradeResult) string {
	var b strings.Builder
	part := func(from, to int) int {
		n := 0
		for _, c := range g.criteria[from:to] {
			n += c.Score
		}
		return n
	}
	fmt.Fprintf(&b, "I. OPERAȚIUNI INTELECTUALE (%d/40)\n", part(0, 6))
	for _, c := range g.criteria {
		if c.ID == "2.1" {
			fmt.Fprintf(&b, "II. REDACTAREA SOLUȚIEI (%d/60)\n", part(6, 10))
		}
		fmt.Fprintf(&b, "%s %s: %d/%d", c.ID, c.Label, c.Score, c.Max)
		var parts []string
		for _, s := range c.Subitems {
			parts = append(parts, fmt.Sprintf("%s %s/%d", s.ID, num(s.Score), s.Max))
		}
		if len(c.Problems) > 1 {
			for _, p := range c.Problems {
				parts = append(parts, fmt.Sprintf("P%d %s/%d × %d/50", p.Problem, num(p.Raw), p.RawMax, p.Weight))
			}
		}
		if len(parts) > 0 {
			b.WriteString(" (" + strings.Join(parts, ", ") + ")")
		}
		if c.Comment != "" {
			b.WriteString(" – " + c.Comment)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "PUNCTAJ TOTAL: %d/100\nCalificativ: %s\n", g.total, prompts.Band(g.total))
	if g.strengths != "" {
		b.WriteString("Puncte forte: " + g.strengths + "\n")
	}
	if g.improve != "" {
		b.WriteString("De îmbunătățit: " + g.improve + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// num prints a score: "3" or "3,5".
func num(v float64) string {
	if v == math.Trunc(v) {
		return strconv.Itoa(int(v))
	}
	return strings.Replace(strconv.FormatFloat(v, 'f', 1, 64), ".", ",", 1)
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

// without drops every shingle and short sentence that also occurs in a public text (the
// statute, the case, its steps and hints, the student's own words): quoting those is
// not leaking the reference, and a "[…]" there would only tell the student where their
// wording matches the reference.
func (r *redactor) without(public ...string) *redactor {
	var buf []byte
	for _, pub := range public {
		ws := words(pub)
		seq := make([]int32, len(ws))
		for i, w := range ws {
			buf = normWord(buf[:0], pub[w.start:w.end])
			if n, ok := r.ids[string(buf)]; ok {
				seq[i] = n
			} else {
				seq[i] = -1
			}
		}
		for i := 0; i+shingle <= len(seq); i++ {
			delete(r.grams, [shingle]int32(seq[i:i+shingle]))
		}
		for n := 5; n < shingle; n++ {
			for i := 0; i+n <= len(seq); i++ {
				key := [shingle - 1]int32{-1, -1, -1, -1, -1, -1, -1}
				copy(key[:], seq[i:i+n])
				delete(r.sentences, key)
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
