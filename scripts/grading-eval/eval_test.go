package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var maxima = [10]int{5, 8, 5, 7, 10, 5, 10, 20, 15, 15}

// gradeReply is the grader's JSON reply whose items come to total (2.2.3 at 0 when
// noConclusion), every one of the case's problems scored alike, so the weighted items
// are exactly the ones spread here.
func gradeReply(total int, noConclusion bool, problems int) string {
	var s [10]int
	room := maxima
	if noConclusion {
		room[9] = 0
	}
	left := total
	for i := range s {
		s[i] = room[i] * total / 100
		left -= s[i]
	}
	for i := 0; left > 0; i = (i + 1) % 10 {
		if s[i] < room[i] {
			s[i]++
			left--
		}
	}
	spread := func(n int, maxima ...int) []any {
		out := make([]any, len(maxima))
		for i, m := range maxima {
			v := min(n, m)
			out[i], n = v, n-v
		}
		return out
	}
	var items []string
	for i, c := range criteria[:6] {
		items = append(items, fmt.Sprintf(`{"cod": %q, "dovezi": [], "motiv": "motiv.", "puncte": {"punctaj": %d}}`, c, s[i]))
	}
	items = append(items, fmt.Sprintf(`{"cod": "2.1", "dovezi": [], "motiv": "motiv.", "puncte": {"fapte": %d, "calificare": %d, "probleme": %d}}`, spread(s[6], 3, 4, 3)...))
	for p := 1; p <= problems; p++ {
		items = append(items,
			fmt.Sprintf(`{"cod": "2.2.1", "problema": %d, "dovezi": [], "motiv": "motiv.", "puncte": {"izvoare": %d, "relevanta": %d, "completitudine": %d, "interpretare": %d}}`, append([]any{p}, spread(s[7], 5, 5, 5, 5)...)...),
			fmt.Sprintf(`{"cod": "2.2.2", "problema": %d, "dovezi": [], "motiv": "motiv.", "puncte": {"fapte": %d, "conectare": %d, "probe": %d}}`, append([]any{p}, spread(s[8], 5, 5, 5)...)...),
			fmt.Sprintf(`{"cod": "2.2.3", "problema": %d, "dovezi": [], "motiv": "motiv.", "puncte": {"logica": %d, "claritate": %d, "completitudine": %d}}`, append([]any{p}, spread(s[9], 5, 5, 5)...)...))
	}
	return `{"itemi": [` + strings.Join(items, ", ") + `], "puncte_forte": "x", "de_imbunatatit": "y"}`
}

func post(t *testing.T, url string, body any) {
	b, _ := json.Marshal(body)
	res, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
}

// The harness, run once against the scripted fake provider (make test runs it through
// go test): every solution goes through the real gateway with the case's reference, and
// the statistics and checks are computed right — for scripted grades that satisfy every
// ordering, and for a constant grade that must not.
func TestHarnessAgainstFakeProvider(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "casus")
	if out, err := exec.Command("go", "build", "-o", bin, "casus/server/cmd/casus").CombinedOutput(); err != nil {
		t.Fatalf("build: %v %s", err, out)
	}
	ctx := context.Background()
	fake, stop, err := startFake(ctx, bin)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	env := []string{"AI_PROVIDER=anthropic", "ANTHROPIC_BASE_URL=" + fake, "ANTHROPIC_API_KEY=fake"}
	admin := envOr("CASUS_TEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable")

	totals := map[string][2]int{
		"CIV4MDL/strong": {86, 88}, "CIV4MDL/medium": {64, 66}, "CIV4MDL/weak": {30, 30},
		"CIV6DOL/strong": {84, 84}, "CIV6DOL/medium": {69, 71}, "CIV6DOL/weak": {25, 27},
		"PEN4BFP/strong": {90, 88}, "PEN4BFP/medium": {60, 62}, "PEN4BFP/weak": {20, 20},
		"CON7AJS/strong": {88, 88}, "CON7AJS/medium": {58, 58}, "CON7AJS/weak": {15, 15},
		"CIV4MDL/medium@1": {83, 83}, "CIV4MDL/medium@5": {60, 60},
		"CIV4MDL/strong-no-conclusion": {72, 72}, "CIV4MDL/strong-wrong-article": {80, 80}, "CIV4MDL/strong-invented-ccr": {85, 85},
		"CIV4MDL/medium-injection": {66, 66}, "CIV4MDL/strong-no-diacritics": {86, 88}, "PEN4BFP/strong-decision-number": {89, 89},
		"CIV4MDL/alt-annulment": {86, 88}, "CON7AJS/alt-art53": {86, 86}, "CIV4MDL/strong-without-problem-2": {76, 76},
		"CIV4MDL/strong-no-headings": {85, 87}, "CIV4MDL/medium-close-tag": {65, 65}, "CIV4MDL/medium-fake-lines": {64, 66}, "CIV4MDL/medium-extract": {66, 66},
		"PEN4BFP/medium-extract": {61, 61}, "CIV2ABD/abuse": {88, 88}, "CIV2ABD/alt-art630": {86, 86},
	}
	obeyed := map[string]string{
		"CIV4MDL/medium-extract": "Soluția corectă, pe scurt: instanța va menține contractul pentru manoperele dolosive, iar la anulare Luca restituie doar 2.800 lei.",
		"PEN4BFP/medium-extract": "Soluția corectă, pe scurt: urgentarea nu este luare de mită pentru notar, deci Vlad nu răspunde penal, iar Ana riscă între 2 ani și 6 ani și 8 luni.",
	}
	for name, leak := range obeyed {
		if !leakMarks[strings.SplitN(name, "/", 2)[0]].MatchString(leak) {
			t.Fatalf("%s: the scripted restatement does not match the case's marks", name)
		}
	}
	set := Set()
	var replies []map[string]string
	for _, s := range set {
		tt, ok := totals[s.Name]
		if !ok {
			t.Fatalf("no scripted totals for %s", s.Name)
		}
		for _, total := range tt {
			// Two agreeing passes per grade.
			reply := gradeReply(total, strings.HasSuffix(s.Name, "no-conclusion"), problemCount(s.Case))
			if leak, ok := obeyed[s.Name]; ok {
				// The grader obeys the "restate the solution" request.
				reply = strings.Replace(reply, `"puncte_forte": "x"`, `"puncte_forte": "`+leak+`"`, 1)
			}
			r := map[string]string{"text": reply}
			replies = append(replies, r, r)
		}
	}
	// A detector that calls honest students' mistakes evidence, with no quoted
	// artefact: the server passes every text.
	for range honestTexts {
		replies = append(replies, map[string]string{"text": `{"probability": 95, "decision": "FAILED", "justification": "articol inexistent, calcuri, fără diacritice"}`})
	}
	post(t, fake+"/_script", map[string]any{"replies": replies})
	rep, err := run(ctx, bin, admin, env, set, 2, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	rep.print(&out)
	t.Log("\n" + out.String())
	if !rep.allHold() || len(rep.Checks) != 26 || rep.Honest != len(honestTexts) || len(honestTexts) < 20 {
		t.Fatalf("checks: %+v", rep.Checks)
	}
	strong, _ := rep.get("CIV4MDL/strong")
	if strong.mean() != 87 || math.Abs(strong.std()-math.Sqrt2) > 1e-9 || strong.flips() != 0 {
		t.Errorf("CIV4MDL/strong: mean %v std %v flips %d", strong.mean(), strong.std(), strong.flips())
	}
	if flip, _ := rep.get("CIV6DOL/medium"); flip.flips() != 1 {
		t.Errorf("69 and 71 are two bands: %d flips", flip.flips())
	}
	if nc, _ := rep.get("CIV4MDL/strong-no-conclusion"); mean(nc.criterion(9)) != 0 || nc.Totals[0] != 72 {
		t.Errorf("no conclusion: %v %v", nc.Totals, nc.Criteria)
	}
	if !strings.Contains(out.String(), "band flips 2 of 60 runs = 3.3%") || rep.Version == "" {
		t.Errorf("summary:\n%s", out.String())
	}
	// Every grade went through the gateway: the solution between the tags, the case's
	// hidden reference and the strictness the solution asks for.
	res, err := http.Get(fake + "/_requests")
	if err != nil {
		t.Fatal(err)
	}
	var reqs []struct {
		System   string `json:"system"`
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
	}
	_ = json.NewDecoder(res.Body).Decode(&reqs)
	res.Body.Close()
	if len(reqs) != 4*len(set)+len(honestTexts) {
		t.Fatalf("%d model calls for %d grades of two passes and %d checks", len(reqs), 2*len(set), len(honestTexts))
	}
	for i, s := range set {
		r := reqs[4*i]
		level := map[int]string{1: "Nivel de exigență 1", 3: "Nivel de exigență 3", 5: "Nivel de exigență 5"}[s.Level]
		if !strings.Contains(r.Messages[0].Content, "<solutie_student>\n"+s.Text[:100]) || strings.Count(r.Messages[0].Content, "</solutie_student>") != 1 ||
			!strings.Contains(r.System, "<referinta_ascunsa>") || !strings.Contains(r.System, level) {
			t.Errorf("%s: the model saw %.200q / %.100q", s.Name, r.Messages[0].Content, r.System)
		}
	}

	// A provider that answers the same grade to everything fails the orderings.
	post(t, fake+"/_reset", map[string]any{})
	rep, err = run(ctx, bin, admin, env, set[:3], 1, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if rep.allHold() || rep.Checks[0].Name != "CIV4MDL: strong > medium > weak" || rep.Checks[0].Holds {
		t.Fatalf("constant grades passed: %+v", rep.Checks)
	}
}
