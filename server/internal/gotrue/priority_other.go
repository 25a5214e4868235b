//go:build !linux

package gotrue

// lowerThreadPriority leaves the thread's priority alone where threads cannot be given
// one of their own.
func lowerThreadPriority() {}
