package main

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"golang.org/x/crypto/bcrypt"

	"casus/scripts/internal/proccpu"
)

// cpuTimes is the CPU time (user + system) spent by the server instances, the proxy in
// front of them, the PostgreSQL backends of their database, the fake AI provider and this
// generator (the last two are the harness, but they share the machine). On a
// machine shared with other work the latencies stretch with its load, but the CPU time a
// request costs does not, so the report divides these by the requests: a figure to
// compare runs and changes by.
type cpuTimes struct {
	self, proxy, fake time.Duration
	// machineBusy and machineTotal are proccpu.Machine's: every process's time, and the
	// cores' time.
	machineBusy, machineTotal time.Duration
	servers                   map[int]time.Duration // by instance process id
	backends                  map[int]time.Duration // by backend process id
}

func sampleCPU(ctx context.Context, serverPIDs []int, proxyPID, fakePID int, database string) cpuTimes {
	t := cpuTimes{self: proccpu.Self(), servers: map[int]time.Duration{}}
	t.machineBusy, t.machineTotal = proccpu.Machine()
	for _, pid := range serverPIDs {
		t.servers[pid] = proccpu.Of(pid)
	}
	if proxyPID != 0 {
		t.proxy = proccpu.Of(proxyPID)
	}
	if fakePID != 0 {
		t.fake = proccpu.Of(fakePID)
	}
	if database != "" {
		t.backends = proccpu.Backends(ctx, adminURL(), database)
	}
	return t
}

// since is the CPU time spent from before to t; a backend absent before started since.
// An instance killed in between (-kill-after) counts for nothing: its time is gone with it.
func (t cpuTimes) since(before cpuTimes) (server, proxy, fake, db, self time.Duration) {
	db = proccpu.Spent(before.backends, t.backends)
	for pid, d := range t.servers {
		if b, ok := before.servers[pid]; ok && d >= b {
			server += d - b
		}
	}
	return server, t.proxy - before.proxy, t.fake - before.fake, db, t.self - before.self
}

// cpuAt reads the CPU d from now; the function it returns cancels a reading not yet due
// (nil) or gives the reading, waiting for one under way.
func cpuAt(d time.Duration, read func() cpuTimes) func() *cpuTimes {
	c := make(chan cpuTimes, 1)
	t := time.AfterFunc(d, func() { c <- read() })
	return func() *cpuTimes {
		if t.Stop() {
			return nil
		}
		m := <-c
		return &m
	}
}

// machineSince is how busy the machine was from before to t, as a share of one core
// (200 % is both cores of a 2-core machine busy throughout); -1 when not read.
func (t cpuTimes) machineSince(before cpuTimes, cores int) float64 {
	total := t.machineTotal - before.machineTotal
	if before.machineTotal == 0 || total <= 0 {
		return -1
	}
	return 100 * float64(cores) * float64(t.machineBusy-before.machineBusy) / float64(total)
}

// phaseCPU splits the run's CPU at the end of the arrivals, when the sign-ins stop,
// and when the first students leave: the arrivals are where a short machine runs out
// first, and between the two every student is in.
type phaseCPU struct {
	start                   cpuTimes
	arrivalsEnd, firstLeave *cpuTimes // nil when the run ended first
	ramp, duration          time.Duration
	arrivalRate             float64       // students arriving a second
	comparison              time.Duration // one bcrypt comparison at cost 10 on this machine, idle
}

// report prints each phase's CPU by process and the machine's, and what the sign-ins of
// the arrivals ask on top of the students in: a figure above the machine's cores means
// the end of the arrivals queues whatever is scheduled.
func (p phaseCPU) report() {
	if p.arrivalsEnd == nil || p.firstLeave == nil || p.duration <= p.ramp {
		return
	}
	cores := runtime.NumCPU()
	phase := func(name string, from, to cpuTimes, d time.Duration) float64 {
		server, proxy, fake, db, self := to.since(from)
		share := func(x time.Duration) float64 { return 100 * x.Seconds() / d.Seconds() }
		proxyText := ""
		if proxy > 0 {
			proxyText = fmt.Sprintf(", HAProxy %.0f", share(proxy))
		}
		busy := to.machineSince(from, cores)
		fmt.Printf("  %s: server %.0f%s, PostgreSQL %.0f, generator %.0f, fake AI provider %.0f; whole machine %.0f of %d\n",
			name, share(server), proxyText, share(db), share(self), share(fake), busy, 100*cores)
		return busy
	}
	fmt.Println("CPU by phase (% of one core):")
	phase(fmt.Sprintf("arrivals (0 to %s)", p.ramp), p.start, *p.arrivalsEnd, p.ramp)
	in := phase(fmt.Sprintf("every student in (%s to %s)", p.ramp, p.duration), *p.arrivalsEnd, *p.firstLeave, p.duration-p.ramp)
	signIns := 100 * p.arrivalRate * p.comparison.Seconds()
	fmt.Printf("  the arrivals' sign-ins ask %.1f a second × one bcrypt comparison (%s here, idle) = %.0f, and every student in %.0f:\n"+
		"  the end of the arrivals asks about %.0f of the machine's %d (an estimate: the two added)\n",
		p.arrivalRate, ms(p.comparison), signIns, in, signIns+in, 100*cores)
}

// bcryptComparison times one bcrypt comparison at GoTrue's cost 10, the least of three
// (the machine is idle before the students arrive).
func bcryptComparison() time.Duration {
	hash, err := bcrypt.GenerateFromPassword([]byte("comparison"), 10)
	if err != nil {
		return 0
	}
	best := time.Duration(0)
	for range 3 {
		t0 := time.Now()
		_ = bcrypt.CompareHashAndPassword(hash, []byte("comparison"))
		if d := time.Since(t0); best == 0 || d < best {
			best = d
		}
	}
	return best
}
