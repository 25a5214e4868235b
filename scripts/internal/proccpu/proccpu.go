// Package proccpu reads the CPU time processes have used (from /proc, and a database's
// PostgreSQL backends listed by pg_stat_activity), for the benchmarks and the load run: on
// a machine shared with other work latencies stretch, CPU per request not.
package proccpu

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
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

// Self is this process's user+system CPU time so far.
func Self() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Backends is the CPU time so far of each PostgreSQL backend connected to database, by
// process id, listed through a connection to adminURL (nil when it cannot be listed).
func Backends(ctx context.Context, adminURL, database string) map[int]time.Duration {
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return nil
	}
	defer conn.Close(ctx)
	rows, _ := conn.Query(ctx, "select pid from pg_stat_activity where datname = $1", database)
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return nil
	}
	out := make(map[int]time.Duration, len(pids))
	for _, pid := range pids {
		out[int(pid)] = Of(int(pid))
	}
	return out
}

// Spent is the CPU time the backends spent from before to after: one absent before
// started since (it counts from zero); one gone by after counts for nothing.
func Spent(before, after map[int]time.Duration) time.Duration {
	var d time.Duration
	for pid, t := range after {
		d += t - before[pid]
	}
	return d
}

// Machine is the CPU time all of the machine's cores have been busy and have existed
// for, since boot (from /proc/stat; zeros when it cannot be read): two readings give
// how busy the machine was in between, whatever ran on it.
func Machine() (busy, total time.Duration) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, 0
	}
	// user nice system idle iowait irq softirq steal (guest time is inside user).
	var ticks [8]int64
	for i := range ticks {
		ticks[i], _ = strconv.ParseInt(f[i+1], 10, 64)
	}
	var all int64
	for _, t := range ticks {
		all += t
	}
	idle := ticks[3] + ticks[4]
	return time.Duration(all-idle) * clockTick, time.Duration(all) * clockTick
}
