package aigw

import (
	"fmt"
	"strings"
	"testing"

	"casus/server/internal/aigw/aitest"
	"casus/server/internal/aigw/prompts"
)

// mkPass is a pass scoring Part I and the introduction as given and every problem's
// sub-items (izvoare, relevanta, completitudine, interpretare, fapte, conectare, probe,
// logica, claritate, completitudine) as given.
func mkPass(partI [6]int, intro [3]int, problems ...[10]int) pass {
	p := pass{points: map[string]float64{}, items: map[string]modelItem{}}
	for i, code := range []string{"1.1", "1.2", "1.3", "1.4", "1.5", "1.6"} {
		p.points[itemKey(code, 0)+"/punctaj"] = float64(partI[i])
		p.items[itemKey(code, 0)] = modelItem{Code: code, Reason: "motiv " + code}
	}
	for i, k := range []string{"fapte", "calificare", "probleme"} {
		p.points[itemKey("2.1", 0)+"/"+k] = float64(intro[i])
	}
	p.items[itemKey("2.1", 0)] = modelItem{Code: "2.1"}
	for n, sc := range problems {
		i := 0
		for _, cr := range prompts.Criteria[7:] {
			for _, si := range cr.Sub {
				p.points[itemKey(cr.Code, n+1)+"/"+si.Key] = float64(sc[i])
				i++
			}
			p.items[itemKey(cr.Code, n+1)] = modelItem{Code: cr.Code, Problem: n + 1, Reason: fmt.Sprintf("P%d la %s", n+1, cr.Code)}
		}
	}
	return p
}

func scores(g gradeResult) []int {
	var out []int
	for _, c := range g.criteria {
		out = append(out, c.Score)
	}
	return out
}

var (
	fullI     = [6]int{5, 8, 5, 7, 10, 5}
	fullIntro = [3]int{3, 4, 3}
	fullProb  = [10]int{5, 5, 5, 5, 5, 5, 5, 5, 5, 5}
	noProb    = [10]int{}
)

// The server weighs the problems: a student who solves the main problem of two (34/16)
// and not the other gets 34 of the 50 analysis points, never the whole analysis.
func TestWeightsAppliedByTheServer(t *testing.T) {
	two, _ := prompts.Problems("Problemele juridice: (1) Este anulabil actul? (2) Ce se restituie?")
	g := reconcile([]pass{mkPass(fullI, fullIntro, fullProb, noProb)}, two)
	// 2.2.1: 20 × 34/50 = 13.6; 2.2.2 and 2.2.3: 15 × 34/50 = 10.2; 84 in all.
	if fmt.Sprint(scores(g)) != "[5 8 5 7 10 5 10 14 10 10]" || g.total != 84 {
		t.Fatalf("scores %v total %d", scores(g), g.total)
	}
	p := g.criteria[7].Problems
	if len(p) != 2 || p[0].Weight != 34 || p[1].Weight != 16 || p[0].Raw != 20 || p[0].Points != 13.6 || p[1].Points != 0 {
		t.Fatalf("2.2.1 problems %+v", p)
	}
	// Solving only the second problem earns its 16.
	g = reconcile([]pass{mkPass(fullI, fullIntro, noProb, fullProb)}, two)
	if fmt.Sprint(scores(g)) != "[5 8 5 7 10 5 10 6 5 5]" || g.total != 66 {
		t.Fatalf("second only: %v %d", scores(g), g.total)
	}
	// Three problems (26/12/12), all solved: the full 50.
	three, _ := prompts.Problems("Problemele juridice: (1) a? (2) b? (3) c?")
	g = reconcile([]pass{mkPass(fullI, fullIntro, fullProb, fullProb, fullProb)}, three)
	if g.total != 100 {
		t.Fatalf("three solved: %v %d", scores(g), g.total)
	}
}

// Items are rounded so that they add up to the rounded total, and the feedback the
// student reads is written from the computed numbers.
func TestRoundingAddsUpAndFeedbackIsTheServers(t *testing.T) {
	three, _ := prompts.Problems("Problemele juridice: (1) a? (2) b? (3) c?")
	// P1 3 of 5 everywhere, P2 and P3 1 of 5: 2.2.1 = (12×26 + 4×12 + 4×12)/50 = 8.16,
	// 2.2.2 = (9×26 + 3×12 + 3×12)/50 = 6.12, 2.2.3 likewise 6.12.
	p1 := [10]int{3, 3, 3, 3, 3, 3, 3, 3, 3, 3}
	p2 := [10]int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	g := reconcile([]pass{mkPass([6]int{3, 4, 3, 4, 5, 3}, [3]int{2, 2, 1}, p1, p2, p2)}, three)
	sum := 0
	for _, s := range scores(g) {
		sum += s
	}
	if sum != g.total || g.total != 22+5+8+6+6 {
		t.Fatalf("scores %v (sum %d) total %d", scores(g), sum, g.total)
	}
	fb := feedbackText(g)
	for _, want := range []string{"I. OPERAȚIUNI INTELECTUALE (22/40)", "II. REDACTAREA SOLUȚIEI (25/60)", "PUNCTAJ TOTAL: 47/100", "Calificativ: Nesatisfăcător",
		"2.2.1 Premisa majoră: 8/20 (P1 12/20 × 26/50, P2 4/20 × 12/50, P3 4/20 × 12/50) – P1: P1 la 2.2.1", "2.1 Introducere: 5/10 (fapte 2/3, calificare 2/4, probleme 1/3)"} {
		if !strings.Contains(fb, want) {
			t.Errorf("feedback lacks %q:\n%s", want, fb)
		}
	}
	// Halves from a mean of two passes still add up.
	g = reconcile([]pass{mkPass([6]int{3, 4, 3, 4, 5, 3}, fullIntro, p1), mkPass([6]int{4, 5, 4, 5, 6, 4}, fullIntro, p1)}, []prompts.Problem{{Text: "x", Points: 50}})
	sum = 0
	for _, s := range scores(g) {
		sum += s
	}
	// Part I means: 3.5 4.5 3.5 4.5 5.5 3.5 = 25; +10 +12 +9 +9 = 65.
	if sum != g.total || g.total != 65 {
		t.Fatalf("halves: %v (sum %d) total %d", scores(g), sum, g.total)
	}
}

// Three passes settle by every sub-item's median, so one outlier pass moves nothing.
func TestMedianOfThreePasses(t *testing.T) {
	one := []prompts.Problem{{Text: "x", Points: 50}}
	low := mkPass([6]int{2, 3, 2, 3, 4, 2}, [3]int{1, 1, 1}, p(2))
	mid := mkPass([6]int{3, 5, 3, 4, 6, 3}, [3]int{2, 2, 2}, p(3))
	high := mkPass(fullI, fullIntro, fullProb)
	g := reconcile([]pass{high, low, mid}, one)
	if want := reconcile([]pass{mid}, one); fmt.Sprint(scores(g)) != fmt.Sprint(scores(want)) || g.total != want.total {
		t.Fatalf("median %v %d, want %v %d", scores(g), g.total, scores(want), want.total)
	}
}

func p(v int) [10]int {
	var out [10]int
	for i := range out {
		out[i] = v
	}
	return out
}

// A quote the model gives as evidence is kept only when the student wrote it (case,
// diacritics, punctuation and spacing aside).
func TestEvidenceMustBeTheStudents(t *testing.T) {
	student := "Contractul este anulabil, potrivit art. 44 alin. (1) C.civ.\nMinora avea 17 ani."
	got := quotedFrom(student, []string{"contractul este ANULABIL", "Minora  avea 17 ani", "minora avea 18 ani", "vânzare", ""})
	if fmt.Sprint(got) != "[contractul este ANULABIL Minora  avea 17 ani]" {
		t.Fatalf("kept %q", got)
	}
	// The fake provider's reply reads as a full grade for any number of problems.
	two, _ := prompts.Problems("Problemele juridice: (1) a? (2) b?")
	ps, problem := readPass(aitest.GradeJSON(2, [10]int{4, 6, 4, 5, 7, 4, 7, 14, 10, 9}), two, "Soluția")
	if problem != "" || passTotal(ps, two) != 70 {
		t.Fatalf("%q %d", problem, passTotal(ps, two))
	}
}
