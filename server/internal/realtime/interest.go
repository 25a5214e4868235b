package realtime

import (
	"encoding/json"
	"sync"
	"time"
)

// interest tells the WAL holder which tables the cluster's subscriptions name, so that it
// decodes and hands on only those changes: under load most published writes (the app's
// conversations, say) are watched by nobody, and handing each to every instance over the
// bus cost more than everything else the holder did.
//
// Every instance announces the tables its postgres_changes subscriptions name ("i"
// envelopes) with each heartbeat, to a starting instance, and at once when a join adds a
// table. Such a join is answered only after the holder acknowledges that announcement
// ("a"): a change committed after the join reply is decoded after the acknowledgement, so
// the holder's filter already has the table. Lacking an answer (no holder, or one dying)
// the join goes on after interestAckWait; a holder that starts with peers hands on
// everything for its first interestGrace, long enough for its bus listener to have read
// what was announced before it took over. A peer the holder has no announcement from
// counts as watching every table.
type interest struct {
	s *Server

	mu sync.Mutex
	// announced is what this instance announced last: table → the version that first
	// named it (everySince likewise for a subscription to every table; 0: none).
	announced  map[string]uint64
	everySince uint64
	version    uint64
	// acked is the highest version the holder acknowledged; acks is closed and replaced
	// whenever it grows.
	acked uint64
	acks  chan struct{}
	// peers holds the other instances' last announcements.
	peers map[string]interestSet
}

type interestSet struct {
	Tables  []string `json:"t,omitempty"`
	Every   bool     `json:"e,omitempty"`
	Version uint64   `json:"v"`
}

const (
	interestAckWait = 5 * time.Second
	interestGrace   = 2 * interestAckWait
)

func newInterest(s *Server) *interest {
	return &interest{s: s, announced: map[string]uint64{}, acks: make(chan struct{}), peers: map[string]interestSet{}}
}

// announce sends the tables the local subscriptions name now, replacing the last
// announcement (so a table nobody here watches any more is dropped from it).
func (in *interest) announce() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.announceLocked()
}

func (in *interest) announceLocked() {
	// Read under the lock: a join registers its subscription before it takes the lock
	// (await), so an announcement made after that includes the table.
	tables, every := in.s.changes.subscribedTables()
	in.version++
	next := make(map[string]uint64, len(tables))
	for _, t := range tables {
		if v, ok := in.announced[t]; ok {
			next[t] = v
		} else {
			next[t] = in.version
		}
	}
	in.announced = next
	switch {
	case !every:
		in.everySince = 0
	case in.everySince == 0:
		in.everySince = in.version
	}
	body, _ := json.Marshal(interestSet{Tables: tables, Every: every, Version: in.version})
	// Sent under the lock, so announcements leave in version order.
	in.s.bus.send(envelope{Kind: "i", Body: body})
}

// await returns once the holder knows of every table subs name (or after
// interestAckWait). The join calls it after registering the channel, before answering.
func (in *interest) await(subs []pgSub) {
	if len(subs) == 0 || in.s.wal.streaming.Load() || !in.s.wal.ready() {
		// The holder is here (it reads local subscriptions directly when it hands a
		// batch on), or no instance streams: a new holder starts with interestGrace.
		return
	}
	in.mu.Lock()
	need, grow := in.neededLocked(subs)
	if grow {
		in.announceLocked()
		need, _ = in.neededLocked(subs)
	}
	if need <= in.acked {
		in.mu.Unlock()
		return
	}
	acks := in.acks
	in.mu.Unlock()
	timeout := time.NewTimer(interestAckWait)
	defer timeout.Stop()
	for {
		select {
		case <-acks:
			in.mu.Lock()
			done := in.acked >= need
			acks = in.acks
			in.mu.Unlock()
			if done {
				return
			}
		case <-timeout.C:
			if in.s.wal.ready() {
				in.s.d.Log.Warn("realtime: the WAL holder did not acknowledge a subscription's table in time; joining anyway")
			}
			return
		case <-in.s.ctx.Done():
			return
		}
	}
}

// neededLocked is the announcement version the holder must have acknowledged for subs,
// and whether one of them is not announced yet.
func (in *interest) neededLocked(subs []pgSub) (need uint64, grow bool) {
	for _, sub := range subs {
		v := in.everySince
		if sub.Table != "" && sub.Table != "*" {
			v = in.announced[sub.Table]
		}
		if v == 0 {
			grow = true
		}
		need = max(need, v)
	}
	return need, grow
}

// received applies another instance's announcement; the holder acknowledges it.
func (in *interest) received(from string, body json.RawMessage) {
	var set interestSet
	if json.Unmarshal(body, &set) != nil {
		return
	}
	in.mu.Lock()
	if old, ok := in.peers[from]; !ok || set.Version > old.Version {
		in.peers[from] = set
	}
	in.mu.Unlock()
	if in.s.wal.streaming.Load() {
		ack, _ := json.Marshal(set.Version)
		in.s.bus.send(envelope{Kind: "a", Key: from, Body: ack})
	}
}

// acknowledged records the holder's acknowledgement of our announcement version.
func (in *interest) acknowledged(body json.RawMessage) {
	var v uint64
	if json.Unmarshal(body, &v) != nil {
		return
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if v > in.acked {
		in.acked = v
		close(in.acks)
		in.acks = make(chan struct{})
	}
}

// watched answers, for the holder, whether a table's changes are named by a subscription
// here or on a live peer; before filterFrom, every table is.
func (in *interest) watched(filterFrom time.Time) func(table string) bool {
	all := func(string) bool { return true }
	if time.Now().Before(filterFrom) {
		return all
	}
	tables, every := in.s.changes.subscribedTables()
	if every {
		return all
	}
	set := make(map[string]bool, len(tables))
	for _, t := range tables {
		set[t] = true
	}
	live := in.s.presence.livePeers(presenceTimeout)
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, peer := range live {
		p, ok := in.peers[peer]
		if !ok || p.Every {
			return all
		}
		for _, t := range p.Tables {
			set[t] = true
		}
	}
	return func(table string) bool { return set[table] }
}

// forget drops the announcements of instances no longer heard from.
func (in *interest) forget() {
	live := map[string]bool{}
	for _, p := range in.s.presence.livePeers(presenceTimeout) {
		live[p] = true
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	for peer := range in.peers {
		if !live[peer] {
			delete(in.peers, peer)
		}
	}
}
