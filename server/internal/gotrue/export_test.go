package gotrue

import (
	"context"
	"runtime"
	"sync"
)

// HoldHashSlots keeps every hashing worker of s busy, as a burst of sign-ins would;
// release frees them.
func HoldHashSlots(s *Server) (release func()) {
	rel := make(chan struct{})
	var started sync.WaitGroup
	started.Add(s.hashing.workers)
	for range s.hashing.workers {
		go func() { _ = s.hashing.do(context.Background(), func() { started.Done(); <-rel }) }()
	}
	started.Wait()
	return func() { close(rel) }
}

// HashWaiting is the number of requests waiting for a bcrypt slot.
func HashWaiting(s *Server) int64 { return s.hashing.waiting.Load() }

// HeldForSignIns is the number of requests YieldToSignIns has held in this process.
func HeldForSignIns() int64 { return processHashing().held.Load() }

// QueueHashJobs queues n computations behind s's workers (held by HoldHashSlots) and
// returns once they wait; they end when ctx does.
func QueueHashJobs(ctx context.Context, s *Server, n int) {
	before := s.hashing.waiting.Load()
	for range n {
		go func() { _ = s.hashing.do(ctx, func() {}) }()
	}
	for s.hashing.waiting.Load() < before+int64(n) {
		runtime.Gosched()
	}
}
