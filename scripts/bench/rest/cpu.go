package main

import (
	"context"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// clockTick is the unit of utime/stime in /proc/<pid>/stat (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

// procCPU is the user+system CPU time a process has used so far (0 if it is gone).
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// Fields after the command name (which may contain spaces) start at state (field 3);
	// utime and stime are fields 14 and 15.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * clockTick
}

// cpuMeter samples the CPU used by the casus server and by the PostgreSQL backends of the
// benchmark database, so each figure can say where the time of one request goes even
// when other work shares the machine (latency figures then suffer, CPU per request not).
type cpuMeter struct {
	owner     *pgxpool.Pool
	serverPID int
}

type cpuSample struct {
	server   time.Duration
	backends map[int]time.Duration
}

func (m cpuMeter) sample(ctx context.Context) cpuSample {
	s := cpuSample{server: procCPU(m.serverPID), backends: map[int]time.Duration{}}
	rows, err := m.owner.Query(ctx, "select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()")
	if err != nil {
		return s
	}
	defer rows.Close()
	for rows.Next() {
		var pid int
		if rows.Scan(&pid) == nil {
			s.backends[pid] = procCPU(pid)
		}
	}
	return s
}

// since is the server's and the backends' CPU between two samples (a backend that
// started in between counts from zero).
func (a cpuSample) since(b cpuSample) (server, db time.Duration) {
	for pid, t := range a.backends {
		db += t - b.backends[pid]
	}
	return a.server - b.server, db
}
