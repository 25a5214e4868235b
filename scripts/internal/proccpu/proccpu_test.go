package proccpu

import (
	"os"
	"testing"
	"time"
)

func TestOfCountsThisProcessAndNotAMissingOne(t *testing.T) {
	start := Of(os.Getpid())
	for deadline := time.Now().Add(5 * time.Second); Of(os.Getpid()) <= start; {
		if time.Now().After(deadline) {
			t.Fatal("the CPU time of a busy process did not grow")
		}
		for i := 0; i < 1e6; i++ {
			_ = i * i
		}
	}
	if got := Of(0); got != 0 {
		t.Fatalf("Of(0) = %v, want 0", got)
	}
	if got := Of(1 << 30); got != 0 {
		t.Fatalf("a missing process: %v, want 0", got)
	}
}

func TestSpentCountsNewBackendsFromZeroAndGoneOnesNot(t *testing.T) {
	before := map[int]time.Duration{1: 10 * time.Millisecond, 2: 50 * time.Millisecond}
	after := map[int]time.Duration{1: 30 * time.Millisecond, 3: 5 * time.Millisecond} // 2 ended, 3 started
	if got := Spent(before, after); got != 25*time.Millisecond {
		t.Fatalf("spent %v, want 25ms", got)
	}
	if got := Spent(nil, nil); got != 0 {
		t.Fatalf("nothing listed: %v", got)
	}
}
