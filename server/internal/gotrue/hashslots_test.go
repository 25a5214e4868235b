package gotrue

import (
	"context"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"
)

// Every core hashes at once (a burst of sign-ins may use the whole machine), and the
// process keeps a Go processor per core for other work while all of them compute.
func TestHashingUsesEveryCoreAndLeavesProcessors(t *testing.T) {
	h := processHashing()
	cores := h.cores
	if os.Getenv("GOMAXPROCS") == "" && cores != runtime.NumCPU() {
		t.Fatalf("%d hashing slots for %d cores", cores, runtime.NumCPU())
	}
	if runtime.GOMAXPROCS(0) < 2*cores {
		t.Fatalf("GOMAXPROCS %d: the %d hashing threads would take the requests' processors", runtime.GOMAXPROCS(0), cores)
	}
	// Fill every slot with a computation that spins until released, and see them all run
	// at once.
	release := make(chan struct{})
	var running, done sync.WaitGroup
	running.Add(cores)
	for range cores {
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
		t.Errorf("the %d slots never computed at once", cores)
	}
	close(release)
	done.Wait()
}
