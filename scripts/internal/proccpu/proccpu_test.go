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
