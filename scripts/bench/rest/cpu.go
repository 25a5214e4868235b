package main

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"casus/scripts/internal/proccpu"
)

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
	s := cpuSample{server: proccpu.Of(m.serverPID), backends: map[int]time.Duration{}}
	rows, err := m.owner.Query(ctx, "select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()")
	if err != nil {
		return s
	}
	defer rows.Close()
	for rows.Next() {
		var pid int
		if rows.Scan(&pid) == nil {
			s.backends[pid] = proccpu.Of(pid)
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
