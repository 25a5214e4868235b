package prompts_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"casus/server/internal/aigw/aitest"
	"casus/server/internal/aigw/prompts"
	"casus/server/internal/seed"
)

// blockRe counts the "Problema k:" blocks FORMAT.md asks for, one per announced problem:
// an independent count of a seeded case's problems.
var blockRe = regexp.MustCompile(`(?m)^Problema \d+:`)

// Every seeded case is weighed with its own problems: a fallback to one 50-point
// problem lets a student who solves one of three problems earn the whole analysis.
func TestProblemsOfEverySeededCase(t *testing.T) {
	cases, err := seed.LoadCases()
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 100 {
		t.Fatalf("only %d seeded cases", len(cases))
	}
	for _, c := range cases {
		ps := problemsOf(t, c.ModelAnswer)
		want := len(blockRe.FindAllString(c.ModelAnswer, -1))
		if want == 0 {
			want = 1
		}
		if len(ps) != want || ps[0].Text == "problema juridică a speței" {
			t.Errorf("%s: %d problems %v, the model answer has %d", c.Code, len(ps), ps, want)
		}
		sum := 0
		for _, p := range ps {
			sum += p.Points
		}
		if sum != 50 {
			t.Errorf("%s: weights add up to %d", c.Code, sum)
		}
	}
}

// The shapes a generated case's model answer takes (the generator's output format in
// prompts.Generate, and the fake provider's generated case) are read too.
func TestProblemsOfGeneratedShapes(t *testing.T) {
	var generated struct {
		ModelAnswer string `json:"model_answer"`
	}
	f, err := aitest.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	text := aitest.DefaultReply(prompts.Generate())
	if err := json.Unmarshal([]byte(strings.Trim(strings.TrimSpace(text), "`json\n")), &generated); err != nil {
		t.Fatalf("fake generated case: %v", err)
	}
	for _, c := range []struct {
		answer string
		want   int
	}{
		{generated.ModelAnswer, 1},
		{"Introducere. Mihai a împrumutat 5.000 lei. Calificare: contract de împrumut. Problemele: (1) este datorată dobânda? (2) a intervenit prescripția?\n\nPremisa majoră. Art. 2159 C.civ.", 2},
		{"Introducere. Faptele. Problema: este valabil testamentul olograf nedatat?\n\nPremisa majoră. Art. 1041 C.civ.", 1},
		{"Introducere. Faptele. Problemele juridice: (1) se aplică art. 53 alin. (2) Const.? (2) ce efect are decizia? (3) cine o poate invoca?\n\nPremisa majoră.", 3},
		{"Introducere. Faptele.\nProblemele: (1) este fapta tâlhărie; (2) se reține concursul de infracțiuni.\n\nPremisa majoră.", 2},
	} {
		if ps := problemsOf(t, c.answer); len(ps) != c.want || ps[0].Text == "problema juridică a speței" {
			t.Errorf("%q: %v, want %d problems", c.answer, ps, c.want)
		}
	}
}

func problemsOf(t *testing.T, answer string) []prompts.Problem {
	t.Helper()
	ps, found := prompts.Problems(answer)
	if !found {
		t.Errorf("no problem list found in %.80q", answer)
	}
	return ps
}
