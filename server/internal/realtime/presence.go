package realtime

import (
	"encoding/json"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"casus/server/internal/realtime/phoenix"
)

// presenceState is this instance's replica of every topic's presences, kept in step
// with other instances through the bus. Each entry remembers which instance owns it
// so the entries of an instance that vanished can be dropped.
type presenceState struct {
	s       *Server
	mu      sync.Mutex
	topics  map[string]map[string]map[string]presenceEntry // topic key (topicKey) → key → ref → entry
	seen    map[string]time.Time                           // instance → last heartbeat
	counter atomic.Uint64
}

type presenceEntry struct {
	Instance string         `json:"i"`
	PhxRef   string         `json:"r"`
	Meta     map[string]any `json:"m"`
}

func newPresenceState(s *Server) *presenceState {
	return &presenceState{s: s, topics: map[string]map[string]map[string]presenceEntry{}, seen: map[string]time.Time{}}
}

func metaWithRef(e presenceEntry) map[string]any {
	m := make(map[string]any, len(e.Meta)+1)
	for k, v := range e.Meta {
		m[k] = v
	}
	m["phx_ref"] = e.PhxRef
	return m
}

// state is the Phoenix presence_state payload of a topic.
func (p *presenceState) state(topic string) map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]any{}
	for key, refs := range p.topics[topic] {
		metas := make([]map[string]any, 0, len(refs))
		for _, e := range refs {
			metas = append(metas, metaWithRef(e))
		}
		out[key] = map[string]any{"metas": metas}
	}
	return out
}

// track adds or replaces the entry of one channel (ref) and announces it everywhere.
func (p *presenceState) track(topic, key, ref string, meta map[string]any) {
	e := presenceEntry{Instance: p.s.instance, PhxRef: strconv.FormatUint(p.counter.Add(1), 36) + "-" + p.s.instance[:6], Meta: meta}
	p.apply(topic, key, ref, &e)
	p.s.bus.publishPresence(topic, key, ref, &e)
}

func (p *presenceState) untrack(topic, key, ref string) {
	p.apply(topic, key, ref, nil)
	p.s.bus.publishPresence(topic, key, ref, nil)
}

// apply changes the replica (e == nil removes) and pushes the diff to local subscribers.
func (p *presenceState) apply(topic, key, ref string, e *presenceEntry) {
	p.mu.Lock()
	keys := p.topics[topic]
	if keys == nil {
		keys = map[string]map[string]presenceEntry{}
		p.topics[topic] = keys
	}
	refs := keys[key]
	if refs == nil {
		refs = map[string]presenceEntry{}
		keys[key] = refs
	}
	old, had := refs[ref]
	if e != nil {
		refs[ref] = *e
	} else {
		delete(refs, ref)
		if len(refs) == 0 {
			delete(keys, key)
		}
		if len(keys) == 0 {
			delete(p.topics, topic)
		}
	}
	p.mu.Unlock()
	joins, leaves := map[string]any{}, map[string]any{}
	if had {
		leaves[key] = map[string]any{"metas": []any{metaWithRef(old)}}
	}
	if e != nil {
		joins[key] = map[string]any{"metas": []any{metaWithRef(*e)}}
	}
	if len(joins) == 0 && len(leaves) == 0 {
		return
	}
	diff, _ := json.Marshal(map[string]any{"joins": joins, "leaves": leaves})
	for _, ch := range p.s.local(topic) {
		if !ch.readsPresence() {
			continue
		}
		ch.c.push(phoenix.Push(ch.joinRef, ch.topic, "presence_diff", json.RawMessage(diff)))
	}
}

// heartbeat records that an instance is alive.
func (p *presenceState) heartbeat(instance string) {
	p.mu.Lock()
	p.seen[instance] = time.Now()
	p.mu.Unlock()
}

// hasPeers reports whether another instance was heard from within ttl.
func (p *presenceState) hasPeers(ttl time.Duration) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	for instance, last := range p.seen {
		if instance != p.s.instance && now.Sub(last) <= ttl {
			return true
		}
	}
	return false
}

// livePeers lists the other instances heard from within ttl.
func (p *presenceState) livePeers(ttl time.Duration) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	var live []string
	for instance, last := range p.seen {
		if instance != p.s.instance && now.Sub(last) <= ttl {
			live = append(live, instance)
		}
	}
	return live
}

// expire drops the entries of instances not heard from within ttl.
func (p *presenceState) expire(ttl time.Duration) {
	type gone struct{ topic, key, ref string }
	var drop []gone
	p.mu.Lock()
	now := time.Now()
	for topic, keys := range p.topics {
		for key, refs := range keys {
			for ref, e := range refs {
				if e.Instance == p.s.instance {
					continue
				}
				if last, ok := p.seen[e.Instance]; !ok || now.Sub(last) > ttl {
					drop = append(drop, gone{topic, key, ref})
				}
			}
		}
	}
	p.mu.Unlock()
	for _, g := range drop {
		p.apply(g.topic, g.key, g.ref, nil)
	}
}

// ownEntries lists this instance's entries, to answer another instance's sync request.
func (p *presenceState) ownEntries(fn func(topic, key, ref string, e presenceEntry)) {
	p.mu.Lock()
	type item struct {
		topic, key, ref string
		e               presenceEntry
	}
	var items []item
	for topic, keys := range p.topics {
		for key, refs := range keys {
			for ref, e := range refs {
				if e.Instance == p.s.instance {
					items = append(items, item{topic, key, ref, e})
				}
			}
		}
	}
	p.mu.Unlock()
	for _, it := range items {
		fn(it.topic, it.key, it.ref, it.e)
	}
}
