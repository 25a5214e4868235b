// Command ai measures what the AI gateway adds on top of the provider: the same
// requests go to the scripted fake Messages API directly (the baseline) and through
// POST /ai/v1/messages of a casus server process (user JWT check, quota lookup, prompt
// built from the case row, usage recorded, SSE relay), interleaved one by one in the
// same run so both see the same machine. Figures: added latency at p50/p99 for a JSON
// reply and time to the first SSE event for a stream. Targets: < 2 ms p50, < 5 ms p99.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"casus/scripts/bench/internal/benchutil"
)

const (
	rounds  = 1500 // per figure and per path
	warmup  = 100
	fakeAdr = "127.0.0.1:18450" // the AI workstream's port range
)

func main() {
	ctx := context.Background()
	fake, err := startFake(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer stop(fake.cmd)
	dbURL, drop, err := benchutil.TempDatabase(ctx, "casus_bench_ai")
	if err != nil {
		log.Fatal(err)
	}
	defer drop()
	srv, err := benchutil.StartServer(ctx, dbURL, "ANTHROPIC_API_KEY=bench-key", "ANTHROPIC_BASE_URL="+fake.URL,
		"AI_MODEL=claude-bench", "AI_DAILY_REQUESTS=1000000", "AI_DAILY_TOKENS=1000000000")
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Stop()

	c := benchutil.Client(2)
	anon := benchutil.Token("anon", "", time.Hour)
	body, _ := json.Marshal(map[string]string{"email": "ai-bench@example.ro", "password": "parola-bench"})
	b, err := benchutil.Do(c, "POST", srv.URL+"/auth/v1/signup", body, map[string]string{"apikey": anon, "Content-Type": "application/json"})
	if err != nil {
		log.Fatal("signup: ", err)
	}
	var session struct {
		AccessToken string `json:"access_token"`
	}
	_ = json.Unmarshal(b, &session)
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		log.Fatal(err)
	}
	var caseID string
	err = conn.QueryRow(ctx, `insert into cases (case_code, title, domain, legal_problem, case_description, question, verified)
		values ('BENCHAI', 'Caz 1: Bench', 'civil', 'Răspunderea civilă delictuală', 'Ion a spart geamul lui Vasile.', 'Răspunde Ion?', true) returning id`).Scan(&caseID)
	conn.Close(ctx)
	if err != nil {
		log.Fatal(err)
	}

	gwHdr := map[string]string{"Authorization": "Bearer " + session.AccessToken, "X-Casus-Task": "tutor", "X-Casus-Case": caseID}
	// The direct call carries what the gateway would send, so both paths move the same bytes.
	directBody := `{"model":"claude-bench","max_tokens":1024,"temperature":0.1,"system":"Ești tutorele Casus.","messages":[{"role":"user","content":"De unde încep?"}]`
	gwBody := `{"model":"claude-bench","max_tokens":1024,"messages":[{"role":"user","content":"De unde încep?"}]`
	directHdr := map[string]string{"x-api-key": "bench-key", "anthropic-version": "2023-06-01"}

	fmt.Printf("AI gateway benchmark: %d interleaved request pairs per figure, loopback, fake upstream at %s\n\n", rounds, fake.URL)
	run := func(stream bool) (direct, gw []time.Duration) {
		suffix := "}"
		if stream {
			suffix = `,"stream":true}`
		}
		for i := 0; i < warmup+rounds; i++ {
			d, err := timeCall(c, fake.URL+"/v1/messages", directBody+suffix, directHdr, stream)
			if err != nil {
				log.Fatal("direct: ", err)
			}
			g, err := timeCall(c, srv.URL+"/ai/v1/messages", gwBody+suffix, gwHdr, stream)
			if err != nil {
				log.Fatal("gateway: ", err)
			}
			if i >= warmup {
				direct, gw = append(direct, d), append(gw, g)
			}
		}
		return
	}
	report := func(name string, direct, gw []time.Duration) {
		p := func(d []time.Duration, q float64) time.Duration { return benchutil.Percentile(d, q) }
		fmt.Printf("%s\n", name)
		fmt.Printf("  direct to fake (baseline):  p50 %s  p99 %s\n", benchutil.MS(p(direct, 50)), benchutil.MS(p(direct, 99)))
		fmt.Printf("  through /ai/v1/messages:    p50 %s  p99 %s\n", benchutil.MS(p(gw, 50)), benchutil.MS(p(gw, 99)))
		fmt.Printf("  added by the gateway:       p50 %s (target < 2 ms)  p99 %s (target < 5 ms)\n",
			benchutil.MS(p(gw, 50)-p(direct, 50)), benchutil.MS(p(gw, 99)-p(direct, 99)))
		fmt.Printf("  ratio gateway / direct:     p50 %.2f  p99 %.2f\n\n", float64(p(gw, 50))/float64(p(direct, 50)), float64(p(gw, 99))/float64(p(direct, 99)))
	}
	d, g := run(false)
	report("JSON reply (full round trip):", d, g)
	d, g = run(true)
	report("Streaming, time to the first SSE event:", d, g)
}

type fakeAI struct {
	URL string
	cmd *exec.Cmd
}

// startFake runs `casus fake-ai` (a separate process, like a real provider) and waits
// until it answers.
func startFake(ctx context.Context) (*fakeAI, error) {
	cmd := exec.CommandContext(ctx, "bin/casus", "fake-ai", "--addr", fakeAdr)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	f := &fakeAI{URL: "http://" + fakeAdr, cmd: cmd}
	for i := 0; i < 100; i++ {
		if res, err := http.Get(f.URL + "/_requests"); err == nil {
			res.Body.Close()
			return f, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop(cmd)
	return nil, fmt.Errorf("casus fake-ai did not start on %s", fakeAdr)
}

func stop(cmd *exec.Cmd) {
	_ = cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		_ = cmd.Process.Kill()
	}
}

// timeCall returns the full round trip for JSON, or the time to the first complete SSE
// event for a stream (the rest is drained untimed).
func timeCall(c *http.Client, url, body string, hdr map[string]string, stream bool) (time.Duration, error) {
	req, _ := http.NewRequest("POST", url, bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	t0 := time.Now()
	res, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(res.Body)
		return 0, fmt.Errorf("%d %s", res.StatusCode, b)
	}
	if !stream {
		_, err = io.Copy(io.Discard, res.Body)
		return time.Since(t0), err
	}
	br := bufio.NewReader(res.Body)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return 0, fmt.Errorf("stream ended before an event: %w", err)
		}
		if strings.HasPrefix(line, "data:") {
			break
		}
	}
	d := time.Since(t0)
	_, err = io.Copy(io.Discard, br)
	return d, err
}
