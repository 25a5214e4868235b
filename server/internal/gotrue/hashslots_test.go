package gotrue

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Every core hashes at once, with two workers each (a burst of sign-ins may use the
// whole machine, and hashing gets a double share of cores that are short), and the
// process keeps a Go processor per core for other work while all of them compute.
func TestHashingUsesEveryCoreAndLeavesProcessors(t *testing.T) {
	h := processHashing()
	workers := h.workers
	cores := runtime.NumCPU()
	if env := os.Getenv("GOMAXPROCS"); env != "" {
		cores, _ = strconv.Atoi(env)
	}
	if workers < 2*cores {
		t.Fatalf("%d hashing workers for %d cores: hashing would get no larger share of a busy machine than a request", workers, cores)
	}
	if runtime.GOMAXPROCS(0) < cores+workers {
		t.Fatalf("GOMAXPROCS %d: the %d hashing workers would take the requests' processors", runtime.GOMAXPROCS(0), workers)
	}
	// Fill every slot with a computation that spins until released, and see them all run
	// at once.
	release := make(chan struct{})
	var running, done sync.WaitGroup
	running.Add(workers)
	for range workers {
		done.Add(1)
		go func() {
			defer done.Done()
			_ = h.do(context.Background(), func() {
				running.Done()
				for {
					select {
					case <-release:
						return
					default: // busy, as bcrypt is
					}
				}
			})
		}()
	}
	all := make(chan struct{})
	go func() { running.Wait(); close(all) }()
	select {
	case <-all:
	case <-time.After(30 * time.Second):
		t.Errorf("the %d slots never computed at once", workers)
	}
	close(release)
	done.Wait()
}

// While more sign-ins wait than the workers compute at once, yield holds a request until
// the backlog clears (the workers catch up, or queued sign-ins are abandoned), at most for
// its bound or until the caller leaves; without a backlog it returns at once.
func TestYieldHoldsRequestsWhileSignInsAreBacklogged(t *testing.T) {
	h := newHashSlots(1)
	ctx := t.Context()
	if got := h.yield(ctx, time.Hour); got != notBacklogged {
		t.Fatalf("idle: %v", got)
	}
	release, running := make(chan struct{}), make(chan struct{})
	go func() { _ = h.do(ctx, func() { close(running); <-release }) }()
	<-running
	queued, abandon := context.WithCancel(ctx)
	defer abandon()
	until := func(what string, cond func() bool) {
		t.Helper()
		for start := time.Now(); !cond(); runtime.Gosched() {
			if time.Since(start) > 30*time.Second {
				t.Fatal("never: " + what)
			}
		}
	}
	queue := func(n int64) {
		want := h.waiting.Load() + n
		for range n {
			go func() { _ = h.do(queued, func() {}) }()
		}
		until("queued", func() bool { return h.waiting.Load() == want })
	}
	queue(1) // one waits for the one worker: no backlog yet
	if got := h.yield(ctx, time.Hour); got != notBacklogged {
		t.Fatalf("one queued: %v", got)
	}
	queue(2)
	if got := h.yield(ctx, time.Millisecond); got != heldTooLong {
		t.Fatalf("backlogged, bound 1 ms: %v", got)
	}
	left, leave := context.WithCancel(ctx)
	leave()
	if got := h.yield(left, time.Hour); got != callerGone {
		t.Fatalf("backlogged, caller gone: %v", got)
	}

	// Held until the queued sign-ins are abandoned.
	outcome := make(chan yieldOutcome)
	held := h.held.Load()
	go func() { outcome <- h.yield(ctx, time.Hour) }()
	until("held", func() bool { return h.held.Load() > held })
	abandon()
	if got := waitOutcome(t, outcome); got != backlogCleared {
		t.Fatalf("sign-ins abandoned: %v", got)
	}
	until("every abandoned sign-in gone", func() bool { return h.waiting.Load() == 0 })

	// Held until the worker catches up.
	queued, abandon = context.WithCancel(ctx)
	defer abandon()
	queue(3)
	held = h.held.Load()
	go func() { outcome <- h.yield(ctx, time.Hour) }()
	until("held", func() bool { return h.held.Load() > held })
	close(release)
	if got := waitOutcome(t, outcome); got != backlogCleared {
		t.Fatalf("worker caught up: %v", got)
	}
}

func waitOutcome(t *testing.T, c <-chan yieldOutcome) yieldOutcome {
	t.Helper()
	select {
	case o := <-c:
		return o
	case <-time.After(30 * time.Second):
		t.Fatal("the held request was never let go")
		return 0
	}
}
