package gotrue

import "syscall"

// hashThreadNice is how much lower than the process the hashing threads run: at +2 a
// thread weighs about two thirds of one at the process's priority under the kernel's
// fair scheduler. Lower still starved sign-ins on a busy host: at +10, with other work
// keeping a 2-core machine at a load average of 16–30, the load run's sign-in p99 was
// 8.6 s against 1.3–1.9 s for every other request (one instance), and sign-ins timed
// out with three instances; the requests' own latency gains little from more, since a
// thread that wakes already runs ahead of one that has been computing.
const hashThreadNice = 2

// lowerThreadPriority lowers the calling OS thread's priority by hashThreadNice. Linux
// applies setpriority(PRIO_PROCESS, tid) to that one thread. Lowering needs no privilege,
// so it works in an unprivileged container too.
func lowerThreadPriority() {
	tid := syscall.Gettid()
	cur, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid)
	if err != nil {
		return
	}
	// The raw getpriority syscall returns 20 - nice.
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, tid, min(19, 20-cur+hashThreadNice))
}
