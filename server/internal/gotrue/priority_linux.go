package gotrue

import "syscall"

// hashThreadNice is how much lower than the process the hashing threads run: at +10 a
// thread weighs about a ninth of one at the process's priority under the kernel's fair
// scheduler (and nice is capped at 19).
const hashThreadNice = 10

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
