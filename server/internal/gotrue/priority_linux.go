package gotrue

import "syscall"

// hashThreadNice is the hashing threads' nice value: under the kernel's fair scheduler a
// thread at -10 weighs about nine times one at 0, so a runnable bcrypt computation gets
// a core almost at once while it lasts.
const hashThreadNice = -10

// raiseThreadPriority sets the calling OS thread's nice value to hashThreadNice. Linux
// applies setpriority(PRIO_PROCESS, tid) to that one thread. Without CAP_SYS_NICE (an
// unprivileged container) the call fails and the thread keeps the process's priority:
// sign-ins are then as fast as the machine's fair share allows.
func raiseThreadPriority() {
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), hashThreadNice)
}
