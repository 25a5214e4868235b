package gotrue

import (
	"context"
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
