package gotrue

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// threadNice reads a thread's nice value from /proc (field 19 of its stat line).
func threadNice(t *testing.T, tid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(tid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	n, err := strconv.Atoi(fields[16])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// bcrypt runs on threads of lower priority than the requests', so the kernel runs a
// request ahead of a computation; the requests' own threads keep the process's priority.
func TestHashingRunsAtLowerThreadPriority(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	caller := syscall.Gettid()
	before := threadNice(t, caller)
	var hashTid int
	if err := processHashing().do(context.Background(), func() { hashTid = syscall.Gettid() }); err != nil {
		t.Fatal(err)
	}
	if hashTid == caller {
		t.Fatal("bcrypt ran on the request's own thread")
	}
	if n, want := threadNice(t, hashTid), min(19, before+hashThreadNice); n != want {
		t.Fatalf("hashing thread nice %d, want %d", n, want)
	}
	if n := threadNice(t, caller); n != before {
		t.Fatalf("request thread nice %d after hashing, was %d", n, before)
	}
}

// Every core hashes at once (a burst of sign-ins may use the whole machine), and the
// process keeps a Go processor per core for other work while all of them compute.
func TestHashingUsesEveryCoreAndLeavesProcessors(t *testing.T) {
	h := processHashing()
	cores := cap(h.slots)
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
