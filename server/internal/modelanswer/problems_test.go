package modelanswer

import (
	"fmt"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		answer       string
		want         []string
		line, plural bool
	}{
		{"Calificarea juridică: x.\nProblemele juridice: (1) Este anulabil actul? (2) Se aplică art. 45 alin. (1)?\n\nProblema 1: Anulare", []string{"Este anulabil actul?", "Se aplică art. 45 alin. (1)?"}, true, true},
		{"Problema juridică: Răspunde pârâtul?\n\nProblema 1: x", []string{"Răspunde pârâtul?"}, true, false},
		{"Introducere. Fapte. Problemele: (1) a; (2) b.\n\nPremisa majoră.", []string{"a", "b"}, false, true},
		{"Introducere. Problema: răspunde Ion?\n\nPremisa majoră.", []string{"răspunde Ion?"}, false, false},
		{"Intro. Probleme: a, b și c.", []string{"a", "b", "c"}, false, true},
	} {
		l, ok := Parse(c.answer)
		if !ok || fmt.Sprint(l.Problems) != fmt.Sprint(c.want) || l.Line != c.line || l.Plural != c.plural {
			t.Errorf("%q: %+v %v", c.answer, l, ok)
		}
	}
	// A block title is not an announcement.
	if l, ok := Parse("Problema 1: Anulare\nPremisa majoră: …"); ok {
		t.Errorf("block title taken for a list: %+v", l)
	}
}
