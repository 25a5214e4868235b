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
// yields; extra sign-ins wait for a slot in line. The cost stays 10.
//
// There is a slot per core, so a burst of sign-ins can use the whole machine (the bcrypt
// limit), and each slot computes on an OS thread of its own at a lower scheduling
// priority (hashThread): the kernel runs a request's thread, or PostgreSQL's, ahead of a
// computation whenever both want a core, so hashing takes only the CPU nothing else
// wants. The threads must not take the Go processors (Ps) the requests need either: a
// running computation holds a P, and with every P hashing the other requests would wait
// for one in turns of Go's 10 ms preemption, whatever the kernel's priorities. So the
// process gets a P per slot on top of its own (processHashing).
type hashSlots struct {
	slots   chan struct{}
	work    chan func()  // to the hashing threads, one per slot
	waiting atomic.Int64 // requests waiting for a slot (tests watch it)
}

// processHashing is shared by every Server of the process, as they share its cores. The
// cores are GOMAXPROCS as the process started (the machine's, or the operator's
// GOMAXPROCS); hashing adds as many Ps.
var processHashing = sync.OnceValue(func() *hashSlots {
	n := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(2 * n)
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

// hashThread runs bcrypt computations on an OS thread it keeps for itself, at a lower
// scheduling priority (lowerThreadPriority). Under the kernel's fair scheduler a thread
// at nice 2 weighs about two thirds of one at 0 and gets later deadlines: a request or
// a database backend that wakes up runs ahead of the computation, while an idle core
// hashes at full speed. The thread is never unlocked, so no other goroutine
// inherits its priority.
func hashThread(work <-chan func()) {
	runtime.LockOSThread()
	lowerThreadPriority()
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
