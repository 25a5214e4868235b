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
