package aigw

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

func TestRedactReference(t *testing.T) {
	ref := "Fapta ilicită cauzatoare de prejudiciu atrage răspunderea delictuală a autorului ei. " +
		"Vinovăția se apreciază după art. 16 C.civ. Instanța reține culpa."
	step := "Se verifică existența legăturii de cauzalitate între faptă și prejudiciu conform art. 1357."
	for _, tc := range []struct{ name, text, want string }{
		{"no quotation", "Analiza este corectă și completă.", "Analiza este corectă și completă."},
		{"eight words quoted", "Bine: fapta ilicită cauzatoare de prejudiciu atrage răspunderea delictuală, deci ok.",
			"Bine: […], deci ok."},
		{"quoted without diacritics, other case", "FAPTA ILICITA cauzatoare de prejudiciu atrage raspunderea DELICTUALA a autorului.",
			"[…]."},
		{"seven words are not a shingle", "fapta ilicită cauzatoare de prejudiciu atrage răspunderea altfel",
			"fapta ilicită cauzatoare de prejudiciu atrage răspunderea altfel"},
		{"short whole sentence", "Cum spune baremul, vinovăția se apreciază după art 16 C.civ!", "Cum spune baremul, […]!"},
		{"no shingle across two sources", "Instanța reține culpa se verifică existența legăturii de cauzalitate",
			"Instanța reține culpa se verifică existența legăturii de cauzalitate"},
		{"from a step", "Textul: existența legăturii de cauzalitate între faptă și prejudiciu conform legii.",
			"Textul: […] legii."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := redactReference(tc.text, ref, step); got != tc.want {
				t.Errorf("redactReference(%q)\n got %q\nwant %q", tc.text, got, tc.want)
			}
		})
	}
	if got := redactReference("orice text aici", ""); got != "orice text aici" {
		t.Errorf("an empty reference changed the text: %q", got)
	}
}

// TestRedactorMatchesStringShingles checks the numbered shingles against the plain
// definition (joined normalised words) on random texts drawn from a small vocabulary, so
// that quotations, partial quotations and near misses are frequent.
func TestRedactorMatchesStringShingles(t *testing.T) {
	vocab := strings.Fields("fapta Faptă ilicită ilicita prejudiciu art. 1357 C.civ. vinovăția VINOVATIA culpa; instanța reține! și de a " +
		"răspunderea delictuală? cauzalitate ȘI ţara țara Țara x")
	rng := rand.New(rand.NewPCG(1, 2))
	gen := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(vocab[rng.IntN(len(vocab))])
			b.WriteString([]string{" ", " ", " ", "\n", ", ", ". "}[rng.IntN(6)])
		}
		return b.String()
	}
	for i := 0; i < 300; i++ {
		refs := []string{gen(40 + rng.IntN(60)), gen(rng.IntN(20)), gen(rng.IntN(12))}
		// Texts that copy pieces of the reference, to make quotations likely.
		text := gen(rng.IntN(30))
		if ws := strings.Fields(refs[0]); len(ws) > 10 {
			j := rng.IntN(len(ws) - 9)
			text += strings.Join(ws[j:j+5+rng.IntN(5)], " ") + " " + gen(rng.IntN(10))
		}
		want, got := redactPlain(text, refs...), redactReference(text, refs...)
		if got != want {
			t.Fatalf("refs %q\ntext %q\n got %q\nwant %q", refs, text, got, want)
		}
	}
}

// redactPlain is the definition of redactReference written directly: shingles and short
// sentences as strings of joined normalised words.
func redactPlain(text string, reference ...string) string {
	norm := func(s string) []string {
		var out []string
		for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			out = append(out, strings.NewReplacer("ă", "a", "â", "a", "î", "i", "ș", "s", "ş", "s", "ț", "t", "ţ", "t").Replace(strings.ToLower(w)))
		}
		return out
	}
	grams, sentences := map[string]bool{}, map[string]bool{}
	for _, r := range reference {
		ws := norm(r)
		for i := 0; i+shingle <= len(ws); i++ {
			grams[strings.Join(ws[i:i+shingle], " ")] = true
		}
		for _, s := range regexp.MustCompile(`[.?!;\n]+`).Split(r, -1) {
			if ws := norm(s); len(ws) >= 5 && len(ws) < shingle {
				sentences[strings.Join(ws, " ")] = true
			}
		}
	}
	spans := words(text)
	tw := make([]string, len(spans))
	for i, w := range spans {
		tw[i] = strings.Join(norm(text[w.start:w.end]), "")
	}
	hit := make([]bool, len(tw))
	for n := 5; n <= shingle; n++ {
		for i := 0; i+n <= len(tw); i++ {
			key := strings.Join(tw[i:i+n], " ")
			if n == shingle && grams[key] || n < shingle && sentences[key] {
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
		b.WriteString(text[last:spans[i].start] + "[…]")
		last = spans[j].end
		i = j
	}
	return b.String() + text[last:]
}

func BenchmarkRedactReference(b *testing.B) {
	ref := strings.Repeat("Fapta ilicită cauzatoare de prejudiciu atrage răspunderea delictuală a autorului ei, conform art. 1357 C.civ. ", 40)
	text := strings.Repeat("Studentul a identificat corect norma aplicabilă și condițiile răspunderii; analiza premisei minore este incompletă. ", 20)
	for b.Loop() {
		red := newRedactor(ref)
		for range 10 {
			_ = red.redact(text)
		}
	}
}

// Only the reference's own words are secret: a passage it shares with the statute, the
// public steps or the student's own text stays in the feedback; its own wording does not.
func TestRedactorKeepsPublicText(t *testing.T) {
	statute := "(1) Actele făcute de persoana cu capacitate de exercițiu restrânsă fără încuviințare sunt anulabile, chiar fără dovedirea unui prejudiciu."
	step := "Verificați dacă vânzarea laptopului este un act de dispoziție de mică valoare."
	student := "Tăcerea Ioanei asupra vârstei nu este o manoperă dolosivă, așa că art. 45 nu se aplică."
	ref := "Premisa majoră: actele făcute de persoana cu capacitate de exercițiu restrânsă fără încuviințare sunt anulabile, chiar fără dovedirea unui prejudiciu. " +
		"Vânzarea laptopului este un act de dispoziție de mică valoare? Nu. " + student + " Răzvan restituie laptopul, iar Ioana prețul numai în limita folosului realizat efectiv."
	red := newRedactor(ref).without(statute, step, student)
	for _, public := range []string{
		"Ai citat corect: actele făcute de persoana cu capacitate de exercițiu restrânsă fără încuviințare sunt anulabile.",
		"Pasul de verificat: vânzarea laptopului este un act de dispoziție de mică valoare.",
		"Ai scris bine: tăcerea Ioanei asupra vârstei nu este o manoperă dolosivă.",
	} {
		if got := red.redact(public); got != public {
			t.Errorf("public text redacted:\n%q\n%q", public, got)
		}
	}
	secret := "Concluzia corectă: Răzvan restituie laptopul, iar Ioana prețul numai în limita folosului realizat efectiv."
	if got := red.redact(secret); !strings.Contains(got, "[…]") || strings.Contains(got, "limita folosului realizat efectiv") {
		t.Errorf("the reference's own words reached the student: %q", got)
	}
}
