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

// gradeReply is a well-formed grade whose ten lines add up to total (2.2.3 at 0 when
// noConclusion).
func gradeReply(total int, noConclusion bool) string {
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
	var b strings.Builder
	for i, c := range criteria {
		fmt.Fprintf(&b, "%s Criteriu: %d/%d – motiv.\n", c, s[i], maxima[i])
	}
	fmt.Fprintf(&b, "PUNCTAJ TOTAL: %d/100\nCalificativ: x\n", total)
	return b.String()
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
		"CIV4MDL/medium@1": {70, 70}, "CIV4MDL/medium@5": {60, 60},
		"CIV4MDL/strong-no-conclusion": {72, 72}, "CIV4MDL/strong-wrong-article": {80, 80}, "CIV4MDL/strong-invented-ccr": {85, 85},
		"CIV4MDL/medium-injection": {66, 66}, "CIV4MDL/strong-no-diacritics": {86, 88}, "PEN4BFP/strong-decision-number": {89, 89},
	}
	set := Set()
	var replies []map[string]string
	for _, s := range set {
		tt, ok := totals[s.Name]
		if !ok {
			t.Fatalf("no scripted totals for %s", s.Name)
		}
		for _, total := range tt {
			replies = append(replies, map[string]string{"text": gradeReply(total, strings.HasSuffix(s.Name, "no-conclusion"))})
		}
	}
	post(t, fake+"/_script", map[string]any{"replies": replies})
	rep, err := run(ctx, bin, admin, env, set, 2, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	rep.print(&out)
	t.Log("\n" + out.String())
	if !rep.allHold() || len(rep.Checks) != 11 {
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
	if !strings.Contains(out.String(), "band flips 2 of 40 runs = 5.0%") || rep.Version == "" {
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
	if len(reqs) != 2*len(set) {
		t.Fatalf("%d model calls for %d grades", len(reqs), 2*len(set))
	}
	for i, s := range set {
		r := reqs[2*i]
		level := map[int]string{1: "Nivel de exigență 1", 3: "Nivel de exigență 3", 5: "Nivel de exigență 5"}[s.Level]
		if !strings.Contains(r.Messages[0].Content, "<solutie_student>\n"+s.Text) || !strings.Contains(r.System, "<referinta_ascunsa>") || !strings.Contains(r.System, level) {
			t.Errorf("%s: the model saw %.200q / %.100q", s.Name, r.Messages[0].Content, r.System)
		}
	}

	// A provider that answers the same grade to everything fails the orderings.
	post(t, fake+"/_reset", map[string]any{})
	rep, err = run(ctx, bin, admin, env, set[:3], 1, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if rep.allHold() || len(rep.Checks) != 1 || rep.Checks[0].Holds {
		t.Fatalf("constant grades passed: %+v", rep.Checks)
	}
}
