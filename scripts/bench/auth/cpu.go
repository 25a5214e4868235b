package main

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"casus/scripts/bench/internal/benchutil"
	"casus/scripts/internal/proccpu"
)

// cpuSplit is CPU time by who spent it: the server process, the PostgreSQL backends of
// the bench's database, this process (the client, and the baseline's comparisons outside
// the sign-in rounds) and no one (both cores' idle time). Dividing it by the sign-ins
// shows where the time a sign-in costs beyond its bcrypt comparison goes.
type cpuSplit struct{ server, db, self, idle time.Duration }

func (a cpuSplit) add(b cpuSplit) cpuSplit {
	return cpuSplit{a.server + b.server, a.db + b.db, a.self + b.self, a.idle + b.idle}
}

func (a cpuSplit) sub(b cpuSplit) cpuSplit {
	return cpuSplit{a.server - b.server, a.db - b.db, a.self - b.self, a.idle - b.idle}
}

// sampleSplit reads the counters now. The backends are summed by process id at each
// sample, so one that started in between counts from zero.
func sampleSplit(ctx context.Context, serverPID int, dbURL string) cpuSplit {
	s := cpuSplit{server: proccpu.Of(serverPID), idle: machineIdle()}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		s.self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	conn, err := pgx.Connect(ctx, benchutil.AdminURL())
	if err != nil {
		return s
	}
	defer conn.Close(ctx)
	name := dbURL[strings.LastIndexByte(dbURL, '/')+1:]
	if i := strings.IndexByte(name, '?'); i >= 0 {
		name = name[:i]
	}
	rows, _ := conn.Query(ctx, "select pid from pg_stat_activity where datname = $1", name)
	pids, _ := pgx.CollectRows(rows, pgx.RowTo[int32])
	for _, pid := range pids {
		s.db += proccpu.Of(int(pid))
	}
	return s
}

// machineIdle is the idle time of every core so far (the idle and iowait columns of the
// cpu line of /proc/stat, in USER_HZ ticks).
func machineIdle() time.Duration {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 6 {
		return 0
	}
	idle, _ := strconv.ParseInt(f[4], 10, 64)
	iowait, _ := strconv.ParseInt(f[5], 10, 64)
	return time.Duration(idle+iowait) * 10 * time.Millisecond
}
