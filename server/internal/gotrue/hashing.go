package gotrue

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/crypto/bcrypt"
)

// hashSlots bounds the bcrypt computations (hashing and comparing) running at once. One
// costs ≈65 ms of CPU at GoTrue's cost 10 on the 2-core reference machine and never
// yields, so a burst of sign-ups and sign-ins filled every Go processor (P) with them:
// every other request (data API, realtime) waited for a P behind the whole burst, in
// turns of Go's 10 ms preemption, and the load run's tree took seconds to load. Bounded,
// extra sign-ins wait for a slot in line while other requests keep a processor. The cost
// stays 10.
//
// Each slot computes on a thread of its own (hashThread) that the kernel schedules ahead
// of the rest of the machine where it may.
type hashSlots struct {
	slots   chan struct{}
	work    chan func()  // to the hashing threads, one per slot
	waiting atomic.Int64 // requests waiting for a slot (tests watch it)
}

// processHashing is shared by every Server of the process, as they share its processors.
// It leaves one processor free of hashing when there are two or more: measured back to
// back under the load run, the data API's median was several times lower with one slot
// on two cores than with two (or unbounded).
var processHashing = sync.OnceValue(func() *hashSlots {
	n := max(1, runtime.GOMAXPROCS(0)-1)
	h := &hashSlots{slots: make(chan struct{}, n), work: make(chan func(), n)}
	for range n {
		go hashThread(h.work)
	}
	return h
})

// do runs f in a slot, or gives up with ctx's error when ctx ends while waiting.
func (h *hashSlots) do(ctx context.Context, f func()) error {
	select {
	case h.slots <- struct{}{}:
	default:
		h.waiting.Add(1)
		select {
		case h.slots <- struct{}{}:
			h.waiting.Add(-1)
		case <-ctx.Done():
			h.waiting.Add(-1)
			return ctx.Err()
		}
	}
	defer func() { <-h.slots }()
	done := make(chan struct{})
	h.work <- func() { f(); close(done) } // one thread per slot: never queued
	<-done
	return nil
}

// hashThread runs bcrypt computations on an OS thread it keeps for itself, at a raised
// scheduling priority where the process may set one (raiseThreadPriority). A sign-in's
// latency is one bcrypt's CPU time only while that computation gets a core: on a machine
// whose cores the database and the other requests keep busy, the kernel's fair share
// stretched the 62 ms computation to 100–300 ms (run-queue waits, measured per thread
// in the load run). The thread is never unlocked, so no other goroutine inherits its
// priority; the slots bound it to a share of the cores.
func hashThread(work <-chan func()) {
	runtime.LockOSThread()
	raiseThreadPriority()
	for f := range work {
		f()
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
