package proccpu

import (
	"os"
	"runtime"
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

// The machine's busy time grows by at least what this process spends, and its total by
// the wall time times the cores, give or take a tick per core.
func TestMachineCountsBusyTimeOfEveryCore(t *testing.T) {
	busy0, total0 := Machine()
	self0, wall0 := Self(), time.Now()
	for Self()-self0 < 200*time.Millisecond {
		for i := 0; i < 1e6; i++ {
			_ = i * i
		}
	}
	busy1, total1 := Machine()
	self, wall := Self()-self0, time.Since(wall0)
	if total0 == 0 || busy1-busy0 < self-50*time.Millisecond {
		t.Fatalf("machine busy %v while this process alone spent %v", busy1-busy0, self)
	}
	cores := time.Duration(runtime.NumCPU())
	if d := total1 - total0; d < wall*cores/2 || d > wall*cores*2+cores*clockTick*4 {
		t.Fatalf("machine total %v over %v of wall time on %d cores", d, wall, cores)
	}
}
