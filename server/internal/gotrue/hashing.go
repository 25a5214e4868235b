package gotrue

import (
	"context"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// hashSlots bounds the bcrypt computations (hashing and comparing) running at once. One
// costs ≈60 ms of CPU at GoTrue's cost 10 on the 2-core reference machine and never
// yields; extra sign-ins wait in line. The cost stays 10.
//
// There are two computing goroutines per core (hashWorker), so a burst of sign-ins can
// use the whole machine (the bcrypt limit), and so that, when the machine is short of
// CPU, hashing gets a larger share of it than any other request's thread: the kernel
// shares the cores between runnable threads as equals, so workersPerCore is hashing's
// weight. Sign-ins arrive whether or not the service keeps up, while the other requests
// come from students who wait for each answer before their next one; with one worker
// per core the sign-ins absorbed the whole shortage. At 600 students on the 2-core
// machine (scripts/load, the end of the arrivals) one worker per core gave sign-in p99
// 3.0 s and reads 132 ms; two gave 0.9–3.0 s over three runs (reads 331–459 ms); three
// 1.0 s and 468 ms in one run (each computation, time-shared, took longer). Below saturation nothing changes: the workers
// only run at once when sign-ins queue.
//
// Each takes the next queued computation itself the moment it finishes one: when the
// waiting request's goroutine had to be scheduled to pass its work on, a slot stood idle
// for as long as the busy cores made it wait. The computations must not take the Go
// processors (Ps) the requests need either: a running computation holds a P, and with
// every P hashing the other requests would wait for one in turns of Go's 10 ms
// preemption. So the process gets a P per worker on top of its own (processHashing).
//
// The computations used to run on threads of lower priority (nice +2), so that a
// request's thread ran ahead of them. At 600 students through two instances on the
// 2-core machine that starved the sign-ins at the end of the arrivals (p99 6.7–7.9 s,
// each comparison of 65 ms of CPU stretched to 300–500 ms).
type hashSlots struct {
	workers int
	queue   chan *hashJob
	waiting atomic.Int64 // computations queued, not yet started (tests watch it)

	mu      sync.Mutex    // guards cleared
	cleared chan struct{} // closed when a backlog of sign-ins (YieldToSignIns) clears; nil while there is none
	held    atomic.Int64  // requests yield has held, ever (tests read it)
}

// hashJob is one queued computation; state moves from queued to running (a worker took
// it) or to abandoned (its request ended first), once.
type hashJob struct {
	state atomic.Int32
	f     func()
	done  chan struct{}
}

const (
	jobQueued int32 = iota
	jobRunning
	jobAbandoned
)

// hashQueueMax bounds the queued computations; past it, callers wait to enqueue.
const hashQueueMax = 4096

// workersPerCore is hashing's weight when the cores are short (see hashSlots).
const workersPerCore = 2

// processHashing is shared by every Server of the process, as they share its cores. The
// cores are GOMAXPROCS as the process started (the machine's, or the operator's
// GOMAXPROCS); hashing adds a P per worker.
var processHashing = sync.OnceValue(func() *hashSlots {
	n := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(n + workersPerCore*n)
	return newHashSlots(workersPerCore * n)
})

// newHashSlots starts workers computing workers.
func newHashSlots(workers int) *hashSlots {
	h := &hashSlots{workers: workers, queue: make(chan *hashJob, hashQueueMax)}
	for range workers {
		go h.hashWorker()
	}
	return h
}

// do runs f on a hashing worker, in arrival order, or gives up with ctx's error when ctx
// ends before f started (once started, f is waited for: it writes the caller's result).
func (h *hashSlots) do(ctx context.Context, f func()) error {
	j := &hashJob{f: f, done: make(chan struct{})}
	if h.waiting.Add(1) > h.backlogAt() {
		h.mu.Lock()
		if h.cleared == nil {
			h.cleared = make(chan struct{})
		}
		h.mu.Unlock()
	}
	select {
	case h.queue <- j:
	case <-ctx.Done():
		h.started()
		return ctx.Err()
	}
	select {
	case <-j.done:
		return nil
	case <-ctx.Done():
		if j.state.CompareAndSwap(jobQueued, jobAbandoned) {
			h.started()
			return ctx.Err()
		}
		<-j.done
		return nil
	}
}

// started counts a queued computation out (begun or abandoned) and ends a backlog that
// this clears.
func (h *hashSlots) started() {
	if h.waiting.Add(-1) > h.backlogAt() {
		return
	}
	h.mu.Lock()
	if h.cleared != nil {
		close(h.cleared)
		h.cleared = nil
	}
	h.mu.Unlock()
}

// backlogAt is the number of queued computations past which sign-ins are backlogged: a
// round of every worker. Beyond it a sign-in waits longer than a comparison takes.
func (h *hashSlots) backlogAt() int64 { return int64(h.workers) }

// Why yield returned.
type yieldOutcome int

const (
	notBacklogged yieldOutcome = iota // no backlog: at once
	backlogCleared
	heldTooLong // max passed first
	callerGone  // ctx ended first
)

// yield waits, at most max or until ctx ends, while sign-ins are backlogged.
func (h *hashSlots) yield(ctx context.Context, max time.Duration) yieldOutcome {
	if h.waiting.Load() <= h.backlogAt() {
		return notBacklogged
	}
	h.mu.Lock()
	c := h.cleared
	h.mu.Unlock()
	if c == nil {
		return notBacklogged
	}
	h.held.Add(1)
	t := time.NewTimer(max)
	defer t.Stop()
	select {
	case <-c:
		return backlogCleared
	case <-t.C:
		return heldTooLong
	case <-ctx.Done():
		return callerGone
	}
}

// hashWorker computes queued jobs one after the other, skipping abandoned ones.
func (h *hashSlots) hashWorker() {
	for j := range h.queue {
		if !j.state.CompareAndSwap(jobQueued, jobRunning) {
			continue
		}
		h.started()
		j.f()
		close(j.done)
	}
}

// bcryptHash returns the bcrypt hash of pw at s.BcryptCost, computed in a slot.
func (s *Server) bcryptHash(ctx context.Context, pw string) ([]byte, error) {
	var hash []byte
	var herr error
	if err := s.hashing.do(ctx, func() { hash, herr = bcrypt.GenerateFromPassword([]byte(pw), s.BcryptCost) }); err != nil {
		return nil, err
	}
	return hash, herr
}

// passwordMatches reports whether pw matches hash, comparing in a slot; the error is
// ctx's when it ended while waiting (the caller is gone: neither a match nor a failure).
func (s *Server) passwordMatches(ctx context.Context, hash []byte, pw string) (bool, error) {
	ok := false
	err := s.hashing.do(ctx, func() { ok = bcrypt.CompareHashAndPassword(hash, []byte(pw)) == nil })
	return ok, err
}

// signInPriority is how long YieldToSignIns holds a request at most.
const signInPriority = 250 * time.Millisecond

// YieldToSignIns holds each request, for at most 250 ms, while password sign-ins are
// backlogged (more queued than the workers compute at once), so that when the machine is
// short of CPU the students arriving get it before those already in. The arrivals do not
// slow down when the service does; the students in do, as each waits for an answer before
// the next request, so deferring their requests lowers the demand exactly while the
// sign-ins need the cores. Without a backlog it is one atomic load.
func YieldToSignIns(next http.Handler) http.Handler {
	h := processHashing()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.yield(r.Context(), signInPriority)
		next.ServeHTTP(w, r)
	})
}
