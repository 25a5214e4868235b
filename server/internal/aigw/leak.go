package aigw

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// The redactor hides the reference's own words; a grader that obeys "restate the
// correct solution in other words" (grader-review-3 §2.3, §5) gets past it with a
// paraphrase or a translation. leakCheck is the output check for that: it reads the
// feedback sentence by sentence and removes a sentence that
//   - restates one sentence of the hidden reference: most of the content words it adds
//     to the student's own (by stem, so inflections and word order do not matter) come
//     from that reference sentence (praising or repeating what the student wrote is
//     not a leak); or
//   - is not in Romanian (the feedback is written in Romanian; a sentence in another
//     language is a translation, the easiest way around any word check).
// Pointer-style feedback (which requirement, which article or fact to look at) shares a
// few words with the reference, never most of a sentence's, and words the student can
// read anyway (the case, its steps and hints, the articles' texts) do not count.
//
// A paraphrase made only of public words ("Vlad nu răspunde penal") escapes any word
// check. So when the student's text asks the grader for something (extraction), the
// server keeps none of the grader's free text: only the points and the quoted evidence.

// leakNovel is how many of a sentence's content stems, shared with one reference
// sentence and absent from the student's text and the public texts, make it a
// restatement.
const leakNovel = 3

// leakFresh and leakFreshShare: a sentence whose stems beyond the student's own are, for
// at least leakFreshShare of them and at least leakFresh in number, one reference
// sentence's restates it, even in public words.
const (
	leakFresh      = 5
	leakFreshShare = 0.6
)

// leakShare is the share of a sentence's content stems that must come from that one
// reference sentence.
const leakShare = 0.5

// leakNote replaces a sentence the check removed.
const leakNote = "[Fragment eliminat: reformula soluția de referință.]"

type leakCheck struct {
	ref     []map[string]bool // the content stems of every reference sentence
	student map[string]bool   // the stems of the student's text
	public  map[string]bool   // the stems of the public texts
}

func newLeakCheck(secret []string, student string, public ...string) *leakCheck {
	l := &leakCheck{student: stems(student), public: map[string]bool{}}
	for _, p := range public {
		for s := range stems(p) {
			l.public[s] = true
		}
	}
	for _, s := range secret {
		for _, sent := range sentences(s) {
			if st := stems(sent); len(st) >= leakNovel {
				l.ref = append(l.ref, st)
			}
		}
	}
	return l
}

// clean returns the text with every leaking sentence replaced by leakNote, and whether
// one was.
func (l *leakCheck) clean(text string) (string, bool) {
	var b strings.Builder
	found := false
	for _, sent := range splitKeep(text) {
		if l.leaks(sent) {
			found = true
			lead := sent[:len(sent)-len(strings.TrimLeft(sent, " \t\n"))]
			b.WriteString(lead + leakNote)
			if strings.HasSuffix(sent, "\n") {
				b.WriteString("\n")
			}
			continue
		}
		b.WriteString(sent)
	}
	return b.String(), found
}

func (l *leakCheck) leaks(sent string) bool {
	if foreign(sent) {
		return true
	}
	st := stems(sent)
	question := strings.HasSuffix(strings.TrimSpace(sent), "?")
	own := 0 // stems the student did not write
	for s := range st {
		if !l.student[s] {
			own++
		}
	}
	for _, r := range l.ref {
		shared, fresh, novel := 0, 0, 0
		for s := range st {
			if !r[s] {
				continue
			}
			shared++
			if !l.student[s] {
				fresh++
				if !l.public[s] {
					novel++
				}
			}
		}
		// Words of the reference that neither the student nor the public texts have.
		if novel >= leakNovel && float64(shared) >= leakShare*float64(len(st)) {
			return true
		}
		// Or most of what the grader adds to the student's words is one reference
		// sentence, even in words the student could read elsewhere; a question (where
		// to look, what to check) is how pointer feedback is written.
		if !question && fresh >= leakFresh && float64(fresh) >= leakFreshShare*float64(own) {
			return true
		}
	}
	return false
}

// sentences splits a text at sentence ends: . ! ? ; followed by a space and a capital
// letter or a digit-free new sentence, or a line break. "art. 45", "alin. (2)" and
// "C.civ." do not end a sentence.
func sentences(text string) []string {
	var out []string
	for _, s := range splitKeep(text) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// splitKeep splits like sentences but keeps every byte, so the pieces join back into
// the text.
func splitKeep(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		end := i + size
		switch {
		case r == '\n':
			out = append(out, text[start:end])
			start = end
		case r == '.' || r == '!' || r == '?' || r == ';':
			// The end of a sentence: the next non-space is a capital letter or a quote
			// opening one, or the text ends.
			j := end
			for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
				j++
			}
			if j == end && j < len(text) {
				break // "C.civ.", "3.500"
			}
			next, _ := utf8.DecodeRuneInString(text[j:])
			if j >= len(text) || next == '\n' || isUpper(next) || next == '„' || next == '"' || next == '[' {
				out = append(out, text[start:j])
				start = j
			}
		}
		i = end
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

func isUpper(r rune) bool {
	return r >= 'A' && r <= 'Z' || strings.ContainsRune("ĂÂÎȘŞȚŢ", r)
}

// stems are a text's content words cut to their first five letters (Romanian inflects
// at the end: anulabil, anularea → anula; restituie, restituirea → resti), without
// function words and the rubric's own vocabulary; numbers of two or more digits count
// whole (an article, a sum, a date).
func stems(text string) map[string]bool {
	text = thousands.ReplaceAllString(text, "$1$2")
	out := map[string]bool{}
	var buf []byte
	for _, w := range words(text) {
		buf = normWord(buf[:0], text[w.start:w.end])
		word := string(buf)
		if isNumber(word) {
			if len(word) >= 2 {
				out[word] = true
			}
			continue
		}
		if utf8.RuneCountInString(word) < 4 || stopwords[word] {
			continue
		}
		if r := []rune(word); len(r) > 5 {
			word = string(r[:5])
		}
		if !stopStems[word] {
			out[word] = true
		}
	}
	return out
}

// thousands joins "2.800" into one number.
var thousands = regexp.MustCompile(`(\d)[.](\d{3})\b`)

func isNumber(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return w != ""
}

// stopwords are Romanian function words of four letters or more (normalised).
var stopwords = setOf("acest acesta aceasta aceste acestei acestui acestor acela aceea acel acea aceia acelea " +
	"asupra catre cand care caror carui cele celor celui cum cumva daca dintre doar dupa este esti fara fiind fost " +
	"iata insa inca intre intr intrucat pentru prin sale sunt toate totusi unde unei unor unui voastra vostru " +
	"asta aici acum avea aveau avut deci decat chiar foarte altfel altul alta alte altor mult multe mai putin " +
	"ceea ceva nici niciun nicio oricare orice poate pot putea trebuie tocmai adica anume")

// stopStems are the rubric's and the method's own words, in every feedback and every
// reference (cut like stems).
var stopStems = setOf("premi major minor concl intro probl juridi solut stude punct corec texte artic alineat " +
	"alin litera refer barem")

func setOf(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// foreign tells a sentence in another language than Romanian: at least six words, of
// which a quarter or more are English function words and fewer are Romanian ones.
func foreign(sent string) bool {
	ws := words(sent)
	if len(ws) < 6 {
		return false
	}
	en, ro := 0, 0
	var buf []byte
	for _, w := range ws {
		buf = normWord(buf[:0], sent[w.start:w.end])
		switch {
		case english[string(buf)]:
			en++
		case romanian[string(buf)]:
			ro++
		}
	}
	return float64(en) >= 0.25*float64(len(ws)) && en > ro
}

var english = setOf("the of and is are was were be been to that for not with by under this which it its as on " +
	"an or from at has have had does did so than then there their they he she his her would should could must will")

var romanian = setOf("si sau de la in cu pe pentru ca nu este sunt se din care un o al ai ale lui iar dar daca " +
	"mai fi fost prin dupa catre sa le il ii")

// asksTheGrader tells a student's text that addresses the grader: it names the
// feedback's sections, the grader, the points or the rubric, or asks to restate,
// rewrite, paraphrase or translate the solution. A solution to a case does none of
// these. Compared without case or diacritics.
func asksTheGrader(text string) bool {
	return graderRequest.MatchString(foldText(text))
}

var graderRequest = regexp.MustCompile(`\bpuncte(le)? forte\b|\bde imbunatatit\b|\bcorector|\bevaluator|\bpunctaj|\bbarem|` +
	`\bacorda\S* .{0,30}\bpuncte\b|\b(reformul|parafraz|rescri|tradu)\S*\b.{0,80}\b(solutia|rezolvarea|raspunsul|referinta)|` +
	`\b(solutia|rezolvarea) (corecta|de referinta|model)\b.{0,40}\b(scrie|spune|arata|reformul|rescri|tradu)|\bin (engleza|english)\b|\bignor[ae]\S* .{0,20}(instructiun|regul|barem)`)

// foldText is a text lowered with the Romanian diacritics folded, punctuation kept.
func foldText(s string) string {
	var buf []byte
	last := 0
	for _, w := range words(s) {
		buf = append(buf, s[last:w.start]...)
		buf = normWord(buf, s[w.start:w.end])
		last = w.end
	}
	return string(append(buf, s[last:]...))
}

// askedNote replaces the grader's free text when the student's text addressed the grader.
const askedNote = "Soluția conținea o cerere adresată corectorului; comentariile corectorului au fost omise, iar punctajele sunt cele acordate soluției."

// guardFeedback applies the output checks to the free text of a computed grade (the
// reasons, strengths and improvements the model wrote): the redactor (the reference's
// own words) and the leak check (restatements, translations). When the student's text
// addressed the grader, none of the model's free text is kept: the points and the
// quoted evidence stay. A nil redactor or leak check (no reference) checks nothing.
func guardFeedback(g *gradeResult, red *redactor, leak *leakCheck, asked bool) {
	guard := func(s string) string {
		if asked {
			return ""
		}
		if red != nil {
			s = red.redact(s)
		}
		if leak != nil {
			s, _ = leak.clean(s)
		}
		return s
	}
	for i := range g.criteria {
		g.criteria[i].Comment = guard(g.criteria[i].Comment)
		for j := range g.criteria[i].Problems {
			g.criteria[i].Problems[j].Comment = guard(g.criteria[i].Problems[j].Comment)
		}
	}
	g.strengths, g.improve = guard(g.strengths), guard(g.improve)
	if asked {
		g.improve = askedNote
	}
}
