package gotrue

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
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

// bcrypt runs on threads the kernel schedules ahead of the others, where the process
// may raise a thread's priority; the requests' own threads keep the process's.
func TestHashingRunsAtRaisedThreadPriority(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	caller := syscall.Gettid()
	before := threadNice(t, caller)
	// Whether this process may raise a thread's priority: try on this thread, then undo.
	if syscall.Setpriority(syscall.PRIO_PROCESS, caller, before-1) != nil {
		t.Skip("this process may not raise a thread's priority (neither CAP_SYS_NICE nor an RLIMIT_NICE allowing it)")
	}
	if err := syscall.Setpriority(syscall.PRIO_PROCESS, caller, before); err != nil {
		t.Fatal(err)
	}
	var hashTid int
	if err := processHashing().do(context.Background(), func() { hashTid = syscall.Gettid() }); err != nil {
		t.Fatal(err)
	}
	if hashTid == caller {
		t.Fatal("bcrypt ran on the request's own thread")
	}
	if n := threadNice(t, hashTid); n != hashThreadNice {
		t.Fatalf("hashing thread nice %d, want %d", n, hashThreadNice)
	}
	if n := threadNice(t, caller); n != before {
		t.Fatalf("request thread nice %d after hashing, was %d", n, before)
	}
}
