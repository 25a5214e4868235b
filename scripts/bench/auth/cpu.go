package main

import (
	"context"
	"os"
	"strconv"
	"strings"
	"time"

	"casus/scripts/bench/internal/benchutil"
	"casus/scripts/internal/proccpu"
)

// cpuSample holds the CPU counters at one moment: the server process, the PostgreSQL
// backends of the bench's database (by process id), this process (the client, and the
// baseline's comparisons outside the sign-in rounds) and both cores' idle time.
type cpuSample struct {
	server, self, idle time.Duration
	backends           map[int]time.Duration
}

// cpuSplit is the CPU time spent between samples, by who spent it; divided by the
// sign-ins it shows where the time a sign-in costs beyond its comparison goes.
type cpuSplit struct{ server, db, self, idle time.Duration }

func sampleCPU(ctx context.Context, serverPID int, database string) cpuSample {
	return cpuSample{server: proccpu.Of(serverPID), self: proccpu.Self(), idle: machineIdle(),
		backends: proccpu.Backends(ctx, benchutil.AdminURL(), database)}
}

// add adds what was spent from before to after.
func (s cpuSplit) add(before, after cpuSample) cpuSplit {
	return cpuSplit{s.server + after.server - before.server, s.db + proccpu.Spent(before.backends, after.backends),
		s.self + after.self - before.self, s.idle + after.idle - before.idle}
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
