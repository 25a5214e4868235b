package faults_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"casus/scripts/load/sim"
	"casus/server/internal/aigw/aitest"
)

// probe reads one public row every 25 ms and records each outcome, to see the outage
// and the recovery from the outside at a finer grain than the students' pace.
type probe struct {
	mu   sync.Mutex
	seen []probeResult
	stop chan struct{}
	done chan struct{}
}

type probeResult struct {
	at  time.Time
	ok  bool
	err string
}

func startProbe(base string) *probe {
	p := &probe{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		c := &http.Client{Timeout: 5 * time.Second}
		for {
			req, _ := http.NewRequest("GET", base+"/rest/v1/universities?select=code&limit=1", nil)
			req.Header.Set("apikey", anonKey())
			t0 := time.Now()
			res, err := c.Do(req)
			ok := err == nil && res.StatusCode == 200
			msg := ""
			if err == nil {
				b, _ := io.ReadAll(res.Body)
				res.Body.Close()
				msg = fmt.Sprintf("%d %s", res.StatusCode, tail(string(b), 200))
			} else {
				msg = err.Error()
			}
			p.mu.Lock()
			p.seen = append(p.seen, probeResult{t0, ok, msg})
			p.mu.Unlock()
			select {
			case <-p.stop:
				return
			case <-time.After(25 * time.Millisecond):
			}
		}
	}()
	return p
}

// finish stops the probe and returns the number of probes, the failed ones, and when
// the last failure was sent (zero when none failed).
func (p *probe) finish() (n, failed int, last time.Time) {
	close(p.stop)
	<-p.done
	for _, r := range p.seen {
		if !r.ok {
			failed++
			last = r.at
		}
	}
	return len(p.seen), failed, last
}

// okSince reports whether a probe sent after t succeeded.
func (p *probe) okSince(t time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := len(p.seen) - 1; i >= 0 && p.seen[i].at.After(t); i-- {
		if p.seen[i].ok {
			return true
		}
	}
	return false
}

// runSim starts the students; cancel stops them early.
func runSim(t *testing.T, cfg sim.Config) (results chan *sim.Result, cancel func()) {
	out := make(chan *sim.Result, 1)
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Duration+90*time.Second)
	t.Cleanup(cancel)
	go func() {
		res, err := sim.Run(ctx, cfg)
		if err != nil {
			t.Error(err)
			res = &sim.Result{}
		}
		out <- res
	}()
	return out, cancel
}

func (x *texts) count() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.m)
}

func summary(res *sim.Result) string {
	var ai, aiFailed int
	for _, e := range res.Events {
		if strings.HasPrefix(e.Kind, "AI ") {
			ai++
			if e.Err != "" {
				aiFailed++
			}
		}
	}
	return fmt.Sprintf("%d requests (%d AI, %d AI failed), %d submissions, pushes %d/%d", len(res.Events), ai, aiFailed, res.Submissions, res.PushReceived, res.PushExpected)
}

// PostgreSQL restarted (fast shutdown, then start) while students work: the server, not
// restarted, serves again by itself within seconds; every accepted submission keeps its
// text; nothing is half-saved; nothing recorded twice; realtime pushes resume.
func TestDatabaseRestartUnderLoad(t *testing.T) {
	cl := startCluster(t)
	url := cl.URL("casus")
	fake, err := aitest.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	fake.SetLatency(150*time.Millisecond, 5*time.Millisecond)
	srv := startServer(t, url, fake.URL) // it creates and migrates the database
	pool := prepare(t, url)
	pid := srv.cmd.Process.Pid

	var accepted texts
	results, _ := runSim(t, simConfig(srv, 12, 20*time.Second, &accepted))
	pr := startProbe(srv.URL)
	waitFor(t, "students submitting", 30*time.Second, func() bool { return accepted.count() >= 5 })

	down := time.Now()
	cl.stop()
	stopped := time.Now()
	cl.start()
	up := time.Now()
	if !poll(30*time.Second, func() bool { return pr.okSince(up) }) {
		pr.mu.Lock()
		last := pr.seen[len(pr.seen)-1]
		pr.mu.Unlock()
		t.Fatalf("the server does not serve 30 s after PostgreSQL is back: %s", last.err)
	}
	firstOK := time.Now()
	res := <-results
	probes, probeFailed, lastProbeFailure := pr.finish()

	recovery := time.Duration(0)
	if lastProbeFailure.After(up) {
		recovery = lastProbeFailure.Sub(up)
	}
	w := faultWindow(res, down, up, recovery+2*time.Second)
	pool.Reset() // the test's own connections died with the restart too
	in := checkIntegrity(t, pool, &accepted)
	late := 0
	for _, at := range res.PushMissed {
		if at.After(up.Add(recovery + 5*time.Second)) { // the change listener reconnects every second
			late++
		}
	}
	t.Logf("database restart: down %.0f ms (stop %.0f ms + start %.0f ms); server pid %d kept running: %v",
		ms(up.Sub(down)), ms(stopped.Sub(down)), ms(up.Sub(stopped)), pid, srv.alive() && srv.cmd.Process.Pid == pid)
	t.Logf("students: %s", summary(res))
	t.Logf("requests: %d, failed %d (%d in the fault window); last failure %.0f ms after PostgreSQL was up; after recovery: %d sent, %d failed",
		w.total, w.failed, w.failedIn, ms(w.lastFailure.Sub(up)), w.afterFault, w.failedAfter)
	t.Logf("probe every 25 ms: %d probes, %d failed; last failure sent %.0f ms after PostgreSQL was up; first success seen %.0f ms after",
		probes, probeFailed, ms(recovery), ms(firstOK.Sub(up)))
	t.Logf("submissions: %d accepted, %d kept with their text, %d checked, %d graded; pushes missed %d (after recovery %d)",
		in.accepted, in.kept, in.checked, in.graded, len(res.PushMissed), late)
	for _, s := range errorSamples(res, 5) {
		t.Logf("  failure: %s", s)
	}

	// While the database is away the data API answers in PostgREST's shape: 503
	// PGRST001 when it cannot reach the database, as PostgREST does (supabase-js retries
	// it), or the database's own error (57P01, 500) for a statement it cut off.
	shapes := map[string]int{}
	for _, e := range res.Events {
		if e.Err == "" || !strings.Contains(e.Kind, "rpc ") && !strings.HasPrefix(e.Kind, "GET ") && !strings.HasPrefix(e.Kind, "POST c") && !strings.HasPrefix(e.Kind, "PATCH ") {
			continue
		}
		var body struct {
			Code    any `json:"code"`
			Message any `json:"message"`
		}
		_, raw, _ := strings.Cut(e.Err, ": ")
		_ = json.Unmarshal([]byte(raw), &body)
		code, isString := body.Code.(string)
		if _, hasMsg := body.Message.(string); !isString || !hasMsg {
			t.Errorf("%s: not a PostgREST error during the outage: %s", e.Kind, tail(e.Err, 200))
			continue
		}
		if e.Status == 503 && code != "PGRST001" || e.Status != 503 && e.Status != 500 {
			t.Errorf("%s: %d %s during the outage, want 503 PGRST001 or the database's 500", e.Kind, e.Status, code)
		}
		shapes[fmt.Sprintf("%d %s", e.Status, code)]++
	}
	t.Logf("data API answers during the outage: %v", shapes)
	if !srv.alive() {
		t.Fatal("the server process died")
	}
	if recovery > 10*time.Second {
		t.Errorf("the server took %s after PostgreSQL was back to serve again", recovery)
	}
	if w.failedAfter > 0 {
		t.Errorf("%d requests failed after the server had recovered", w.failedAfter)
	}
	if w.afterFault == 0 || in.graded == 0 {
		t.Errorf("no load after the restart (%d requests), or nothing graded (%d)", w.afterFault, in.graded)
	}
	if in.kept != in.accepted {
		t.Errorf("%d of %d accepted submissions lost", in.accepted-in.kept, in.accepted)
	}
	if late > 0 {
		t.Errorf("%d realtime pushes missing for writes made after the recovery", late)
	}
}

// The AI upstream failing under load — 5xx past the retries, an overloaded 529, a
// proxy's HTML 502, reset connections, replies and streams cut short, slow replies —
// every 3rd model call, and every call for a while: no student's request dies with a broken connection or a
// non-Anthropic answer, no non-AI request fails, nothing is half-saved or recorded twice,
// and a failed check or grade can be asked again and succeeds.
func TestAIUpstreamFaultsUnderLoad(t *testing.T) {
	url := startCluster(t).URL("casus") // its own cluster: the shared one's connections may run out
	fake, err := aitest.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	fake.SetLatency(100*time.Millisecond, 5*time.Millisecond)
	html := "<html><body><h1>502 Bad Gateway</h1></body></html>"
	faults := []aitest.Reply{{Status: 500}, {Fault: aitest.FaultReset}, {Fault: aitest.FaultCut},
		{Status: 529}, {Status: 502, Raw: html}, {DelayMS: 400}}
	fake.SetFaults(3, faults...)
	srv := startServer(t, url, fake.URL) // it creates and migrates the database
	pool := prepare(t, url)
	var accepted texts
	results, _ := runSim(t, simConfig(srv, 10, 16*time.Second, &accepted))
	// A burst in the middle: every call fails for a while (24 model calls, or until the
	// students are done), so the gateway's retries run out and the errors reach them.
	var res *sim.Result
	done := func() bool {
		select {
		case res = <-results:
			return true
		default:
			return false
		}
	}
	waitFor(t, "students submitting", 60*time.Second, func() bool { return accepted.count() >= 3 || done() })
	fake.SetFaults(1, []aitest.Reply{{Status: 500}, {Status: 529}, {Status: 502, Raw: html}, {Fault: aitest.FaultReset}}...)
	before := len(fake.Requests())
	waitFor(t, "the burst", 60*time.Second, func() bool { return res != nil || len(fake.Requests()) >= before+24 || done() })
	burst := len(fake.Requests()) - before
	fake.SetFaults(3, faults...)
	if res == nil {
		res = <-results
	}
	fake.SetFaults(0)

	byStatus := map[string]int{}
	var aiCalls, aiFailed, transport, shapeless, otherFailed int
	for _, e := range res.Events {
		if e.Err != "" && e.Status == 0 {
			transport++
		}
		if !strings.HasPrefix(e.Kind, "AI ") {
			if e.Err != "" {
				otherFailed++
			}
			continue
		}
		if e.Kind == "AI tutor (first text)" {
			continue
		}
		aiCalls++
		if e.Err == "" {
			continue
		}
		aiFailed++
		if e.Shapeless {
			shapeless++
			t.Errorf("%s: not an Anthropic error: %s", e.Kind, tail(e.Err, 300))
		}
		key := fmt.Sprintf("%s %d", e.Kind, e.Status)
		if e.Status == 200 {
			key = e.Kind + " 200 then an error event"
		}
		byStatus[key]++
	}
	in := checkIntegrity(t, pool, &accepted)

	// A check or grade that failed is asked again, by its owner: it succeeds now, and a
	// recorded grade is answered as recorded without calling the model.
	retried, answeredRecorded := 0, 0
	rows, err := pool.Query(context.Background(), `select id::text, user_id::text, ai_checked_at is not null, status = 'graded', coalesce(feedback_text, '')
		from case_submissions order by submitted_at`)
	if err != nil {
		t.Fatal(err)
	}
	type subRow struct {
		id, uid         string
		checked, graded bool
		feedback        string
	}
	var subs []subRow
	for rows.Next() {
		var r subRow
		if err := rows.Scan(&r.id, &r.uid, &r.checked, &r.graded, &r.feedback); err != nil {
			t.Fatal(err)
		}
		subs = append(subs, r)
	}
	rows.Close()
	calls := len(fake.Requests())
	for _, r := range subs {
		if r.graded {
			if answeredRecorded < 5 {
				st, text := gatewayCall(t, srv.URL, r.uid, "grade", r.id)
				if st != 200 || text != r.feedback {
					t.Errorf("asking again for a recorded grade: %d %q", st, tail(text, 100))
				}
				answeredRecorded++
			}
			continue
		}
		if !r.checked {
			if st, text := gatewayCall(t, srv.URL, r.uid, "detect", r.id); st != 200 {
				t.Errorf("check asked again: %d %s", st, text)
				continue
			}
		}
		if st, text := gatewayCall(t, srv.URL, r.uid, "grade", r.id); st != 200 || !strings.Contains(text, "PUNCTAJ TOTAL") {
			t.Errorf("grade asked again: %d %s", st, tail(text, 200))
		}
		retried++
	}
	// A retried submission costs at most a check and a grade's two agreeing passes.
	if got := len(fake.Requests()) - calls; got > 3*retried {
		t.Errorf("asking again for %d recorded grades called the model (%d calls for %d retried submissions)", answeredRecorded, got, retried)
	}
	after := checkIntegrity(t, pool, &accepted)

	var keys []string
	for k := range byStatus {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s: %d", k, byStatus[k]))
	}
	t.Logf("students: %s", summary(res))
	t.Logf("model calls seen by the fake: %d (every 3rd failed, and %d in a row); gateway calls %d, failed %d (%s); transport errors %d, non-Anthropic answers %d, non-AI failures %d",
		calls, burst, aiCalls, aiFailed, strings.Join(parts, ", "), transport, shapeless, otherFailed)
	t.Logf("submissions: %d accepted, %d kept, %d checked, %d graded; after asking again: %d retried, %d graded; %d recorded grades answered again without the model",
		in.accepted, in.kept, in.checked, in.graded, retried, after.graded, answeredRecorded)
	for _, s := range errorSamples(res, 3) {
		t.Logf("  failure: %s", s)
	}
	if !srv.alive() {
		t.Fatal("the server process died")
	}
	if aiFailed == 0 {
		t.Error("no AI call failed: the faults were not injected")
	}
	if transport > 0 || otherFailed > 0 {
		t.Errorf("%d connections broke, %d non-AI requests failed", transport, otherFailed)
	}
	if in.kept != in.accepted || after.graded != len(subs) {
		t.Errorf("kept %d of %d; graded %d of %d after asking again", in.kept, in.accepted, after.graded, len(subs))
	}
}

// gatewayCall asks the AI gateway for a check or a grade as the submission's owner and
// returns the status and the text (or the body of an error).
func gatewayCall(t *testing.T, base, uid, task, sub string) (int, string) {
	req, _ := http.NewRequest("POST", base+"/ai/v1/messages", strings.NewReader(`{"max_tokens": 1024, "messages": [{"role": "user", "content": "-"}]}`))
	req.Header.Set("Authorization", "Bearer "+userToken(t, uid))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Casus-Task", task)
	req.Header.Set("X-Casus-Submission", sub)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var m struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if res.StatusCode == 200 && json.Unmarshal(b, &m) == nil && len(m.Content) > 0 {
		return 200, m.Content[0].Text
	}
	return res.StatusCode, string(b)
}

// The server killed with SIGKILL twice under load, each time just as the model's reply
// to a grade (then to a check) reached it — before it could record it — and restarted on
// the same database and address: the students' requests fail only while it is down;
// every accepted submission keeps its text; nothing is half-saved or recorded twice; the
// interrupted grade can be asked for again and is recorded once.
func TestServerKilledMidWrite(t *testing.T) {
	url := startCluster(t).URL("casus") // its own cluster: the shared one's connections may run out
	fake, err := aitest.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	fake.SetLatency(100*time.Millisecond, 5*time.Millisecond)
	srv := startServer(t, url, fake.URL) // it creates and migrates the database
	pool := prepare(t, url)

	type kill struct {
		what   string
		at, up time.Time
		pid    int
	}
	var kills []kill
	killNow := make(chan int, 1)
	var armed atomic.Value // the prompt marker of the reply to kill on ("" = none)
	armed.Store("")
	fake.OnReply(func(system string) {
		m := armed.Load().(string)
		if m != "" && strings.Contains(system, m) && armed.CompareAndSwap(m, "") {
			pid := srv.cmd.Process.Pid
			srv.kill() // the reply is on the wire: the server holds a grade it has not recorded
			killNow <- pid
		}
	})
	var accepted texts
	// The students work until three of their submissions are graded after the second
	// restart (at most a minute).
	results, stop := runSim(t, simConfig(srv, 10, time.Minute, &accepted))
	for _, target := range []struct{ what, marker string }{{"grade", `"itemi"`}, {"check", `"indicii"`}} {
		waitFor(t, "students submitting", 30*time.Second, func() bool { return accepted.count() >= 3*(len(kills)+1) })
		armed.Store(target.marker)
		var pid int
		select {
		case pid = <-killNow:
		case <-time.After(30 * time.Second):
			t.Fatalf("no %s reply to kill on", target.what)
		}
		at := time.Now()
		srv.start() // the same address and database
		kills = append(kills, kill{what: target.what, at: at, up: time.Now(), pid: pid})
	}
	graded := func() int {
		var n int
		_ = pool.QueryRow(context.Background(), "select count(*) from case_submissions where status = 'graded'").Scan(&n)
		return n
	}
	more := graded() + 3
	waitFor(t, "students' grades after the restarts", 60*time.Second, func() bool { return graded() >= more })
	stop()
	res := <-results
	fake.OnReply(nil)

	// Requests fail only while the server is down (plus the requests in flight at the kill).
	var failedDown, failedOther int
	for _, e := range res.Events {
		if e.Err == "" {
			continue
		}
		end := e.At.Add(e.Dur)
		inside := false
		for _, k := range kills {
			if end.After(k.at.Add(-time.Second)) && e.At.Before(k.up.Add(time.Second)) {
				inside = true
			}
		}
		if inside {
			failedDown++
		} else {
			failedOther++
			t.Errorf("failed outside the kills: %s %s", e.Kind, tail(e.Err, 200))
		}
	}
	in := checkIntegrity(t, pool, &accepted)

	// What the kills interrupted is asked for again, by its owner.
	rows, err := pool.Query(context.Background(), `select id::text, user_id::text, ai_checked_at is not null from case_submissions where status <> 'graded'`)
	if err != nil {
		t.Fatal(err)
	}
	var pending [][3]string
	for rows.Next() {
		var id, uid string
		var checked bool
		_ = rows.Scan(&id, &uid, &checked)
		pending = append(pending, [3]string{id, uid, fmt.Sprint(checked)})
	}
	rows.Close()
	for _, p := range pending {
		if p[2] == "false" {
			if st, text := gatewayCall(t, srv.URL, p[1], "detect", p[0]); st != 200 {
				t.Errorf("check after restart: %d %s", st, text)
			}
		}
		// A grade the stopped students left in flight may still hold its claim for a moment
		// (409 "in progress" until the server gives it back): ask again until it settles.
		st, text := gatewayCall(t, srv.URL, p[1], "grade", p[0])
		for deadline := time.Now().Add(60 * time.Second); st == 409 && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond) // polling the claim, not a fixed wait
			st, text = gatewayCall(t, srv.URL, p[1], "grade", p[0])
		}
		if st != 200 || !strings.Contains(text, "PUNCTAJ TOTAL") {
			// Who holds the claim, for the record: its holder key and whether a session holds it.
			var row string
			_ = pool.QueryRow(context.Background(), `select format('status %s, holder %s, started %s; holding sessions: %s', s.status,
				s.grading_holder, s.grading_started_at, coalesce((select string_agg(format('pid %s since %s from port %s (%s)', a.pid,
				  a.backend_start, a.client_port, a.state), '; ') from pg_locks l join pg_stat_activity a on a.pid = l.pid
				  where l.locktype = 'advisory' and l.granted and l.objsubid = 1
				    and ((l.classid::int8 << 32) | l.objid::int8) = s.grading_holder), 'none'))
				from case_submissions s where s.id::text = $1`, p[0]).Scan(&row)
			t.Errorf("grade after restart: %d %s (%s)", st, tail(text, 200), row)
		}
	}
	after := checkIntegrity(t, pool, &accepted)
	var total int
	if err := pool.QueryRow(context.Background(), "select count(*) from case_submissions").Scan(&total); err != nil {
		t.Fatal(err)
	}

	for _, k := range kills {
		t.Logf("SIGKILL (pid %d) as a %s reply reached the server; up again after %.0f ms", k.pid, k.what, ms(k.up.Sub(k.at)))
	}
	t.Logf("students: %s", summary(res))
	t.Logf("requests failed: %d while the server was down, %d otherwise", failedDown, failedOther)
	t.Logf("submissions: %d accepted, %d kept with their text, %d checked, %d graded; %d left pending by the kills, all graded when asked again: %v",
		in.accepted, in.kept, in.checked, in.graded, len(pending), after.graded == total)
	if in.kept != in.accepted {
		t.Errorf("%d of %d accepted submissions lost", in.accepted-in.kept, in.accepted)
	}
	if after.graded != total {
		t.Errorf("%d of %d submissions graded after asking again", after.graded, total)
	}
	if !srv.alive() || !srv.healthy() {
		t.Error("the restarted server is not serving")
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
