package aigw

import (
	"strings"
	"testing"
)

// The cached guards of a reference do exactly what guards built for each solution did,
// and one solution's guards never change another's: the model answer quoted, a student
// quoting their own words (not a leak), and texts of two different students in turn.
func TestCachedGuardsEqualFreshOnes(t *testing.T) {
	secret, public := seedReference(t, "PEN4BFP")
	var g refGuards
	model := secret[0]
	half := model[:len(model)/2]
	students := []string{mdlMediumText, half, "Răspunsul meu propriu, fără nimic din referință.", mdlMediumText}
	feedback := []string{
		"Comentariu: " + model,
		"Ai scris bine: " + half + " Dar lipsește restul.",
		strings.Repeat("Analiza este incompletă. ", 3),
	}
	for i, student := range students {
		wantRed := newRedactor(secret...).without(append(append([]string{}, public...), student)...)
		wantLeak := newLeakCheck(secret, student, public...)
		red, leak := g.get(secret, public).forStudent(student)
		for _, text := range append(feedback, student) {
			if got, want := red.redact(text), wantRed.redact(text); got != want {
				t.Fatalf("solution %d: redact differs:\n got %q\nwant %q", i, got, want)
			}
			got, gotFound := leak.clean(text)
			want, wantFound := wantLeak.clean(text)
			if got != want || gotFound != wantFound {
				t.Fatalf("solution %d: leak check differs:\n got %q %v\nwant %q %v", i, got, gotFound, want, wantFound)
			}
		}
	}
	if len(g.m) != 1 {
		t.Fatalf("%d cached guards for one reference", len(g.m))
	}
	// A changed reference is another key: never the old guards.
	if g.get(append([]string{model + " Adăugat."}, secret[1:]...), public) == g.get(secret, public) {
		t.Fatal("an edited reference got the cached guards of the old one")
	}
}
