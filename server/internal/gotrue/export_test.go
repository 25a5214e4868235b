package gotrue

// HoldHashSlots takes every bcrypt slot of s, as a burst of sign-ins would; release frees
// them.
func HoldHashSlots(s *Server) (release func()) {
	for range cap(s.hashing.slots) {
		s.hashing.slots <- struct{}{}
	}
	return func() {
		for range cap(s.hashing.slots) {
			<-s.hashing.slots
		}
	}
}

// HashWaiting is the number of requests waiting for a bcrypt slot.
func HashWaiting(s *Server) int64 { return s.hashing.waiting.Load() }
