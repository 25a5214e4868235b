//go:build !linux

package gotrue

// raiseThreadPriority leaves the thread's priority alone where threads cannot be given
// one of their own.
func raiseThreadPriority() {}
