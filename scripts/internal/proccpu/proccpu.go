// Package proccpu reads the CPU time a process has used from /proc, for the benchmarks and
// the load run: on a machine shared with other work latencies stretch, CPU per request not.
package proccpu

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of utime/stime in /proc/<pid>/stat (USER_HZ, 100 on Linux on
// every architecture Go supports here).
const clockTick = 10 * time.Millisecond

// Of is the user+system CPU time process pid has used so far (0 when it cannot be read,
// e.g. the process is gone).
func Of(pid int) time.Duration {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces: count fields after its closing
	// parenthesis, from state (field 3); utime and stime are fields 14 and 15.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * clockTick
}
