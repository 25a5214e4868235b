package main

import (
	"context"
	"time"

	"casus/scripts/internal/proccpu"
)

// cpuTimes is the CPU time (user + system) spent by the server instances, the proxy in
// front of them, the PostgreSQL backends of their database, the fake AI provider and this
// generator (the last two are the harness, but they share the machine). On a
// machine shared with other work the latencies stretch with its load, but the CPU time a
// request costs does not, so the report divides these by the requests: a figure to
// compare runs and changes by.
type cpuTimes struct {
	self, proxy, fake time.Duration
	servers           map[int]time.Duration // by instance process id
	backends          map[int]time.Duration // by backend process id
}

func sampleCPU(ctx context.Context, serverPIDs []int, proxyPID, fakePID int, database string) cpuTimes {
	t := cpuTimes{self: proccpu.Self(), servers: map[int]time.Duration{}}
	for _, pid := range serverPIDs {
		t.servers[pid] = proccpu.Of(pid)
	}
	if proxyPID != 0 {
		t.proxy = proccpu.Of(proxyPID)
	}
	if fakePID != 0 {
		t.fake = proccpu.Of(fakePID)
	}
	if database != "" {
		t.backends = proccpu.Backends(ctx, adminURL(), database)
	}
	return t
}

// since is the CPU time spent from before to t; a backend absent before started since.
// An instance killed in between (-kill-after) counts for nothing: its time is gone with it.
func (t cpuTimes) since(before cpuTimes) (server, proxy, fake, db, self time.Duration) {
	db = proccpu.Spent(before.backends, t.backends)
	for pid, d := range t.servers {
		if b, ok := before.servers[pid]; ok && d >= b {
			server += d - b
		}
	}
	return server, t.proxy - before.proxy, t.fake - before.fake, db, t.self - before.self
}
