// Command load drives simulated students against a Casus server on this machine and
// prints, against the targets of issue #21: throughput, p50/p99 per request kind, errors,
// realtime progress pushes, and the server's memory over time.
//
//	go run ./scripts/load                               200 students for 3 minutes on a private stack
//	go run ./scripts/load -students 20 -duration 20s    the short run
//	go run ./scripts/load -url http://127.0.0.1:8080 -anon-key … [-service-key …] [-pid N]
//	go run ./scripts/load -cluster 3 [-kill-after 90s]  3 instances behind HAProxy; kill -9 one
//
// By default it starts its own stack like scripts/with-server.sh: a throwaway database on
// the local PostgreSQL, the fake AI provider with a model's latency (casus fake-ai
// --delay --stream-delay), and casus serve --seed on a free loopback port; all of it is
// removed at the end. The students' accounts are made first, in a setup that is not
// measured, so that each student signs in once during the run (-signup: each signs up in
// the run instead). Every student stops by itself after -duration; the whole run is
// bounded by -ramp + -duration + 5 minutes. The exit status is 1 when a target is missed.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"casus/scripts/load/sim"
)

func main() { os.Exit(run()) }

// killedAt is when -kill-after's kill -9 was sent (unix nanoseconds; 0: none).
var killedAt atomic.Int64

// run returns the exit status, so that the deferred teardown of the stack always runs.
func run() int {
	students := flag.Int("students", 200, "simulated students")
	duration := flag.Duration("duration", 3*time.Minute, "how long each student keeps acting")
	ramp := flag.Duration("ramp", 0, "student arrivals spread evenly over this (default: a third of -duration, at most 1m)")
	think := flag.Duration("think", time.Second, "mean pause between a student's actions")
	aiDelay := flag.Duration("ai-delay", 2*time.Second, "own stack: the fake provider's latency for the AI check and the grade")
	aiStream := flag.Duration("ai-stream-delay", 30*time.Millisecond, "own stack: the fake provider's pause between streamed tutor events")
	target := flag.Duration("p99", 200*time.Millisecond, "p99 target of every non-AI request")
	signinTarget := flag.Duration("signin-p99", 0, "p99 target of the password sign-in (default: -p99); issue #27 asks 1s at 400 students")
	base := flag.String("url", "", "a running server (loopback) instead of a private stack")
	anon := flag.String("anon-key", os.Getenv("ANON_KEY"), "with -url: the anon key")
	service := flag.String("service-key", os.Getenv("SERVICE_ROLE_KEY"), "with -url: the service-role key, to confirm sign-ups when the server does not autoconfirm")
	pid := flag.Int("pid", 0, "with -url: the server's process id, to sample its memory")
	cluster := flag.Int("cluster", 1, "own stack: this many instances on the one database behind HAProxy (the students reach the proxy)")
	killAfter := flag.Duration("kill-after", 0, "with -cluster: kill -9 the last instance this long after the stack is up (the accounts' unmeasured setup comes first; a fault: only requests in flight to it may fail)")
	killWhich := flag.Int("kill-instance", 0, "with -kill-after: the instance to kill, 1 to N (1 started first and reads the WAL slot; default N)")
	cpuProfile := flag.String("cpuprofile", "", "write this generator's CPU profile to the file (to keep the generator's share of the machine small)")
	signUp := flag.Bool("signup", false, "students sign up during the run (measured) instead of having accounts made in an unmeasured setup")
	flag.Parse()
	if *ramp == 0 {
		// Students arrive over the first minute of the 3-minute run (3.3 a second), not
		// all at once, as a class does. Each arrival signs in: one bcrypt comparison of
		// ≈65 ms of CPU at GoTrue's cost 10 (two with -signup). The rate is printed with
		// the figures.
		*ramp = min(*duration/3, time.Minute)
	}
	if *students < 1 || *students > 2000 || *duration <= 0 || *duration > 30*time.Minute {
		return fail("-students must be 1..2000 and -duration at most 30m")
	}

	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return fail(err.Error())
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fail(err.Error())
		}
		defer pprof.StopCPUProfile()
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *ramp+*duration+5*time.Minute)
	defer cancel()

	cfg := sim.Config{URL: *base, AnonKey: *anon, ServiceKey: *service, Students: *students, Duration: *duration, Ramp: *ramp, Think: *think, Realtime: true}
	serverPID, dbName := *pid, ""
	serverPIDs, proxyPID, fakePID := []int{*pid}, 0, 0
	stackNote := "a running server at " + *base
	if *base == "" {
		if *cluster < 1 || *cluster > 9 || (*killAfter > 0 && *cluster < 2) {
			return fail("-cluster must be 1..9, and -kill-after needs -cluster 2 or more")
		}
		st, err := startStack(ctx, *aiDelay, *aiStream, *cluster)
		if err != nil {
			return fail(err.Error())
		}
		defer st.stop()
		cfg.URL, cfg.AnonKey, cfg.ServiceKey, serverPID, dbName = st.url, st.anonKey, st.serviceKey, st.pid, st.dbName
		serverPIDs, proxyPID, fakePID = st.pids, st.proxyPID, st.fakePID
		stackNote = fmt.Sprintf("a private stack (fake AI: %s per check/grade, %s between stream events)", *aiDelay, *aiStream)
		if *cluster > 1 {
			stackNote += fmt.Sprintf(", %d instances behind HAProxy (memory: the first instance's; CPU: all of them)", *cluster)
		}
		if *killAfter > 0 {
			which := len(st.pids)
			if *killWhich != 0 {
				which = *killWhich
			}
			if which < 1 || which > len(st.pids) {
				return fail("-kill-instance must be 1..-cluster")
			}
			victim := st.pids[which-1]
			go func() {
				select {
				case <-time.After(*killAfter):
					fmt.Printf("load: fault: kill -9 of instance %d (pid %d) at %s\n", which, victim, *killAfter)
					killedAt.Store(time.Now().UnixNano())
					_ = syscall.Kill(victim, syscall.SIGKILL)
				case <-ctx.Done():
				}
			}()
		}
	} else if *anon == "" {
		return fail("-url needs -anon-key (or ANON_KEY)")
	}
	if err := sim.CheckLoopback(cfg.URL); err != nil {
		return fail(err.Error())
	}

	fmt.Printf("load: %d students for %s each, think %s, against %s\n", *students, *duration, *think, stackNote)
	arrival := "each signing up then signing in"
	if !*signUp {
		// A class's accounts exist before the lesson: made here, outside the measured run,
		// through the same sign-up requests; during the run each student signs in once.
		t0 := time.Now()
		accounts, err := sim.Prepare(ctx, &cfg, 2)
		if err != nil {
			return fail("setup: " + err.Error())
		}
		cfg.Accounts = accounts
		fmt.Printf("load: setup (not measured): %d accounts signed up in %.1f s\n", len(accounts), time.Since(t0).Seconds())
		arrival = "each signing in to an existing account (-signup: sign up first)"
	}
	fmt.Printf("load: arrivals evenly over the first %s: %.1f students a second, %s (-ramp)\n", *ramp, float64(*students)/ramp.Seconds(), arrival)
	loadBefore := loadAverage()
	mem := sampleRSS(ctx, serverPID)
	comparison := bcryptComparison()
	readCPU := func() cpuTimes { return sampleCPU(ctx, serverPIDs, proxyPID, fakePID, dbName) }
	cpu0 := readCPU()
	// The CPU is read again when the arrivals end and when the first students leave: the
	// report splits the run there.
	atArrivalsEnd, atFirstLeave := cpuAt(*ramp, readCPU), cpuAt(*duration, readCPU)
	res, err := sim.Run(ctx, cfg)
	arrivalsEnd, firstLeave := atArrivalsEnd(), atFirstLeave()
	if err != nil {
		return fail(err.Error())
	}
	cpu := readCPU()
	phases := phaseCPU{start: cpu0, arrivalsEnd: arrivalsEnd, firstLeave: firstLeave, ramp: *ramp, duration: *duration,
		arrivalRate: float64(*students) / ramp.Seconds(), comparison: comparison}
	samples := mem.stop()
	// The targets are for this machine with nothing else running: a busy machine (other
	// builds and tests) stretches every figure, so the report says how busy it was.
	fmt.Printf("\nmachine: %d CPUs; 1-minute load average %s before the students, %s after (the stack itself adds about 1)\n",
		runtime.NumCPU(), loadBefore, loadAverage())
	if !report(res, samples, *ramp, targets{all: *target, signIn: *signinTarget}, func() { cpuReport(res, cpu0, cpu, dbName != ""); phases.report() }) {
		return 1
	}
	return 0
}

func fail(msg string) int {
	fmt.Fprintln(os.Stderr, "load:", msg)
	return 2
}

// targets are the p99 targets: every non-AI request's, and the sign-in's when set apart.
type targets struct{ all, signIn time.Duration }

func (t targets) of(kind string) time.Duration {
	if kind == sim.KindSignIn && t.signIn > 0 {
		return t.signIn
	}
	return t.all
}

func (t targets) String() string {
	if t.signIn > 0 && t.signIn != t.all {
		return fmt.Sprintf("%s (sign-in %s)", ms(t.all), ms(t.signIn))
	}
	return ms(t.all)
}

// report prints the figures as checks against the targets; false when one is missed.
func report(res *sim.Result, mem []rssSample, ramp time.Duration, target targets, cpu func()) bool {
	ok := true
	verdict := func(good bool) string {
		if good {
			return "ok"
		}
		ok = false
		return "MISSED"
	}
	elapsed := res.End.Sub(res.Start).Seconds()
	kinds := res.Kinds()
	var n, nAI, errs int
	for _, k := range kinds {
		if k.AI {
			nAI += k.Count
		} else {
			n += k.Count
		}
		errs += k.Errors
	}
	// A kill -9 may fail the requests in flight to the killed instance, and nothing else:
	// errors of requests sent before the kill and ended by it are counted apart.
	inFlight := 0
	if at := killedAt.Load(); at != 0 {
		kill := time.Unix(0, at)
		for _, e := range res.Events {
			if e.Err != "" && !e.At.After(kill) && !e.At.Add(e.Dur).Before(kill) {
				inFlight++
			}
		}
		errs -= inFlight
	}
	fmt.Printf("\nrequests: %d in %.1f s = %.0f req/s (+ %d AI calls = %.1f/s); %d submissions\n", n, elapsed, float64(n)/elapsed, nAI, float64(nAI)/elapsed, res.Submissions)
	fmt.Printf("\n%-32s %7s %6s %10s %10s   %s\n", "request", "count", "errors", "p50", "p99", "check")
	var slow []string
	var worst sim.Kind
	for _, k := range kinds {
		// AI calls have no target: their verdict must not count.
		check := "AI: the provider's time, no target"
		if !k.AI {
			check = fmt.Sprintf("p99 %s (target < %s): %s", ms(k.P99), ms(target.of(k.Name)), verdict(k.P99 < target.of(k.Name)))
			if k.P99 >= target.of(k.Name) {
				slow = append(slow, fmt.Sprintf("%s %s", k.Name, ms(k.P99)))
			}
			if k.P99 > worst.P99 {
				worst = k
			}
		}
		fmt.Printf("%-32s %7d %6d %10s %10s   %s\n", k.Name, k.Count, k.Errors, ms(k.P50), ms(k.P99), check)
	}
	// Where a kind misses, when its slowest requests were sent: a cluster at the start of
	// the ramp is a cold server, one spread over the run is steady-state queueing.
	for _, k := range kinds {
		if !k.AI && k.P99 >= target.of(k.Name) {
			fmt.Printf("  %s slowest: %s\n", k.Name, slowest(res, k.Name, 5))
		}
	}
	var summary []string
	if len(slow) == 0 {
		summary = append(summary, fmt.Sprintf("p99 under %s for every non-AI request: ok (slowest %s at %s)", target, worst.Name, ms(worst.P99)))
	} else {
		summary = append(summary, fmt.Sprintf("p99 under %s for every non-AI request: MISSED by %d of them: %s", target, len(slow), strings.Join(slow, ", ")))
	}
	if inFlight > 0 {
		fmt.Printf("\nin flight at the kill -9 and failed by it (allowed): %d\n", inFlight)
	}
	fmt.Printf("\nerrors: %d of %d requests (target 0): %s\n", errs, n+nAI, verdict(errs == 0))
	summary = append(summary, fmt.Sprintf("0 errors: %s (%d of %d requests failed)", map[bool]string{true: "ok", false: "MISSED"}[errs == 0], errs, n+nAI))
	for _, k := range kinds {
		for _, s := range k.Samples {
			fmt.Printf("  %s: %s\n", k.Name, s)
		}
	}
	pushes := verdict(res.PushReceived == res.PushExpected)
	pushDelay := fmt.Sprintf("delay after the write's answer p50 %s p99 %s", ms(sim.Percentile(res.PushDelays, 50)), ms(sim.Percentile(res.PushDelays, 99)))
	fmt.Printf("realtime progress pushes: %d of %d received (target all): %s; %s; reconnects %d\n",
		res.PushReceived, res.PushExpected, pushes, pushDelay, res.WSReconnects)
	if res.PushesLostWithConnection > 0 {
		fmt.Printf("  awaited on a connection that broke, committed before the re-join (not expected): %d\n", res.PushesLostWithConnection)
	}
	summary = append(summary, fmt.Sprintf("every realtime progress push received: %s (%d of %d; %s)", pushes, res.PushReceived, res.PushExpected, pushDelay))
	if len(mem) == 0 {
		fmt.Println("server memory: not sampled (pass -pid with -url)")
		summary = append(summary, "server memory flat after warm-up: not sampled (pass -pid with -url)")
	} else {
		summary = append(summary, memory(res, mem, ramp, verdict))
	}
	cpu()
	fmt.Println("\ntargets (issue #21):")
	for _, line := range summary {
		fmt.Println("  " + line)
	}
	if ok {
		fmt.Println("\nRESULT: every target met")
	} else {
		fmt.Println("\nRESULT: a target was missed (see MISSED above)")
	}
	return ok
}

// memory prints the server's RSS over the run and checks it is flat after warm-up; it
// returns the summary line.
func memory(res *sim.Result, mem []rssSample, ramp time.Duration, verdict func(bool) string) string {
	// Warm-up is the first half of the time after the last student started: pools fill,
	// caches load and the Go heap grows to its collection target (about twice the live
	// heap) in it. Memory is flat when the end is within 10% of the warm-up's.
	warmAt := res.Start.Add(ramp + (res.End.Sub(res.Start)-ramp)/2)
	warm, end, peak := mem[0], mem[len(mem)-1], mem[0]
	for _, s := range mem {
		if !s.at.After(warmAt) {
			warm = s
		}
		if s.rss > peak.rss {
			peak = s
		}
	}
	var line []string
	step := max(1, len(mem)/10)
	for i := 0; i < len(mem); i += step {
		line = append(line, fmt.Sprintf("%.0fs %d MB", mem[i].at.Sub(res.Start).Seconds(), mem[i].rss>>20))
	}
	fmt.Printf("server memory (RSS): %s\n", strings.Join(line, ", "))
	ratio := float64(end.rss) / float64(warm.rss)
	if mins := end.at.Sub(warm.at).Minutes(); mins > 0 {
		fmt.Printf("server memory after warm-up: %+.1f MB per minute\n", float64(end.rss-warm.rss)/(1<<20)/mins)
	}
	flat := verdict(ratio <= 1.10)
	fmt.Printf("server memory: warm-up %d MB (at %.0f s) -> end %d MB, peak %d MB; end/warm-up %.2f (target <= 1.10, flat): %s\n",
		warm.rss>>20, warm.at.Sub(res.Start).Seconds(), end.rss>>20, peak.rss>>20, ratio, flat)
	return fmt.Sprintf("server memory flat after warm-up: %s (end/warm-up %.2f, target <= 1.10)", flat, ratio)
}

// loadAverage is the 1-minute load average from /proc/loadavg ("?" when unreadable).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

// cpuReport prints the CPU time the run cost per request, by process, and the share of
// the machine it used.
func cpuReport(res *sim.Result, before, after cpuTimes, withDB bool) {
	server, proxy, fake, db, self := after.since(before)
	n := len(res.Events)
	if n == 0 {
		return
	}
	per := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000/float64(n)) }
	dbText := "not sampled (own stack only)"
	if withDB {
		dbText = per(db)
	}
	elapsed := res.End.Sub(res.Start)
	proxyText, proxyShare := "", ""
	if proxy > 0 {
		proxyText = ", HAProxy " + per(proxy)
		proxyShare = fmt.Sprintf(", HAProxy %.0f%%", 100*proxy.Seconds()/elapsed.Seconds())
	}
	fmt.Printf("CPU per request (all %d, AI calls included): server %s%s, PostgreSQL %s, this generator %s\n", n, per(server), proxyText, dbText, per(self))
	fakeShare := ""
	if fake > 0 {
		fakeShare = fmt.Sprintf(", fake AI provider %.0f%%", 100*fake.Seconds()/elapsed.Seconds())
	}
	fmt.Printf("CPU used: server %.0f%%%s, PostgreSQL %.0f%%, generator %.0f%%%s of one core on average (the machine has %d)\n",
		100*server.Seconds()/elapsed.Seconds(), proxyShare, 100*db.Seconds()/elapsed.Seconds(), 100*self.Seconds()/elapsed.Seconds(), fakeShare, runtime.NumCPU())
}

// slowest lists the n slowest successful requests of a kind, each with its send time
// relative to the start of the run.
func slowest(res *sim.Result, kind string, n int) string {
	var evs []sim.Event
	for _, e := range res.Events {
		if e.Kind == kind && e.Err == "" {
			evs = append(evs, e)
		}
	}
	sort.Slice(evs, func(i, j int) bool { return evs[i].Dur > evs[j].Dur })
	if len(evs) > n {
		evs = evs[:n]
	}
	parts := make([]string, len(evs))
	for i, e := range evs {
		parts[i] = fmt.Sprintf("%s at +%.1f s", ms(e.Dur), e.At.Sub(res.Start).Seconds())
	}
	return strings.Join(parts, ", ")
}
