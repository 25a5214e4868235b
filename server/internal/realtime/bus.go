package realtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/realtime/phoenix"
)

// The bus carries broadcasts and presence changes between server instances over
// PostgreSQL LISTEN/NOTIFY. Envelopes are batched so a burst costs few NOTIFYs, and
// bodies too large for a NOTIFY payload travel through realtime.bus_messages by id.
//
// Alone, an instance serves its local subscribers directly. With peers, a broadcast
// reaches local subscribers when its own NOTIFY comes back: PostgreSQL delivers
// notifications to every listener in commit order, so every instance sees the cluster's
// broadcasts in one order, and an acknowledgement (sent once the NOTIFY is back) means
// the message is ahead of anything sent after it, whichever instance that goes through.
type bus struct {
	s   *Server
	out chan envelope

	seq      atomic.Uint64
	mu       sync.Mutex
	pending  map[uint64]func() // local deliveries waiting for their own NOTIFY
	npending atomic.Int64
}

const (
	busChannel     = "casus_realtime"
	notifyMaxBytes = 7000 // PostgreSQL caps a NOTIFY payload below 8000 bytes
	busBatchWindow = 2 * time.Millisecond
	// loopbackWait bounds how long a local delivery waits for its own NOTIFY (the
	// listening connection may be reconnecting); then it is delivered anyway.
	loopbackWait    = 3 * time.Second
	presenceTimeout = 3 * heartbeatEvery
)

type envelope struct {
	Origin string `json:"o"`
	// b: broadcast, x: binary broadcast, t: track, u: untrack, h: heartbeat, s: sync
	// request, w: changes and messages read from the WAL, r: the sender streams the slot,
	// i: the tables the sender's subscriptions name, a: the holder acknowledges the "i"
	// of instance Key (interest.go).
	Kind  string `json:"k"`
	Topic string `json:"t,omitempty"` // a topic key (topicKey)
	Key   string `json:"y,omitempty"`
	Ref   string `json:"r,omitempty"`
	// Seq numbers the sender's own envelopes whose local delivery waits for the loop back.
	Seq   uint64          `json:"q,omitempty"`
	Entry *presenceEntry  `json:"e,omitempty"`
	Body  json.RawMessage `json:"d,omitempty"`
	// A binary broadcast (REST application/octet-stream): its event and bytes.
	Event  string `json:"v,omitempty"`
	Binary []byte `json:"x,omitempty"`
}

type notifyPayload struct {
	// Origin is the sending instance, so that it skips its own NOTIFYs without reading
	// (or fetching) the envelopes.
	Origin    string     `json:"o,omitempty"`
	Envelopes []envelope `json:"v,omitempty"`
	StoredID  int64      `json:"id,omitempty"`
}

func newBus(s *Server) *bus {
	return &bus{s: s, out: make(chan envelope, 4096), pending: map[uint64]func(){}}
}

func (b *bus) start() {
	b.s.wg.Add(3)
	go b.listen()
	go b.flush()
	go b.heartbeat()
}

func (b *bus) send(e envelope) {
	e.Origin = b.s.instance
	select {
	case b.out <- e:
	case <-b.s.ctx.Done():
	}
}

// publishBroadcast delivers a broadcast to the subscribers of a topic key (topicKey) here
// and on every other instance. The channel it returns is closed once local subscribers
// have it, in the cluster's order (nil: already done).
func (b *bus) publishBroadcast(key string, payload json.RawMessage, from *channel) <-chan struct{} {
	return b.publish(envelope{Kind: "b", Topic: key, Body: payload}, func() {
		frames := newFrameCache(keyTopic(key), "broadcast", payload)
		for _, ch := range b.s.local(key) {
			ch.deliverBroadcast(frames, from)
		}
	})
}

// publishBinary delivers a binary broadcast to a topic key's subscribers everywhere.
func (b *bus) publishBinary(key, event string, data []byte, from *channel) <-chan struct{} {
	return b.publish(envelope{Kind: "x", Topic: key, Event: event, Binary: data}, func() {
		deliverBinary(b.s, key, event, data, from)
	})
}

// publish sends an envelope to the other instances and runs deliverLocal: at once when
// alone, or when the envelope's NOTIFY comes back when there are peers.
func (b *bus) publish(e envelope, deliverLocal func()) <-chan struct{} {
	if !b.s.presence.hasPeers(presenceTimeout) {
		deliverLocal()
		b.send(e)
		return nil
	}
	done := make(chan struct{})
	e.Seq = b.seq.Add(1)
	b.mu.Lock()
	b.pending[e.Seq] = func() { deliverLocal(); close(done) }
	b.mu.Unlock()
	b.npending.Add(1)
	b.send(e)
	seq := e.Seq
	time.AfterFunc(loopbackWait, func() { b.settle(seq) })
	return done
}

// settle runs a pending local delivery once, whichever of the loop back, a failed
// NOTIFY or the timeout comes first.
func (b *bus) settle(seq uint64) {
	b.mu.Lock()
	deliver := b.pending[seq]
	delete(b.pending, seq)
	b.mu.Unlock()
	if deliver != nil {
		b.npending.Add(-1)
		deliver()
	}
}

// deliverBinary pushes a binary broadcast to the local subscribers that can read it: vsn
// 2.0.0 sockets get the binary frame; 1.0.0 ones cannot carry it and get nothing.
func deliverBinary(s *Server, key, event string, data []byte, from *channel) {
	m := storedMessage{event: event, binary: data, isBinary: true}
	frame := m.frame(phoenix.V2, keyTopic(key), nil)
	if frame == nil {
		return
	}
	for _, ch := range s.local(key) {
		if ch.c.vsn == phoenix.V2 && ch.readsBroadcast() && (from != ch || ch.self) {
			ch.c.pushFrame(frame)
		}
	}
}

func (b *bus) publishPresence(topic, key, ref string, e *presenceEntry) {
	kind := "t"
	if e == nil {
		kind = "u"
	}
	b.send(envelope{Kind: kind, Topic: topic, Key: key, Ref: ref, Entry: e})
}

// flush batches outgoing envelopes into as few NOTIFYs as fit.
func (b *bus) flush() {
	defer b.s.wg.Done()
	for {
		var batch []envelope
		select {
		case e := <-b.out:
			batch = append(batch, e)
		case <-b.s.ctx.Done():
			return
		}
		timer := time.NewTimer(busBatchWindow)
	collect:
		for len(batch) < 256 {
			select {
			case e := <-b.out:
				batch = append(batch, e)
			case <-timer.C:
				break collect
			}
		}
		timer.Stop()
		b.notify(batch)
	}
}

func (b *bus) notify(batch []envelope) {
	ctx, cancel := context.WithTimeout(b.s.ctx, 5*time.Second)
	defer cancel()
	if err := b.notifyNow(ctx, batch); err != nil {
		if b.s.ctx.Err() == nil {
			b.s.d.Log.Error("realtime bus: notify", "err", err)
		}
		// Nothing will come back: local subscribers still get what was sent here.
		for _, e := range batch {
			if e.Seq != 0 {
				b.settle(e.Seq)
			}
		}
	}
}

// notifyNow sends envelopes in as few NOTIFYs as fit and returns once they are committed
// (each is its own statement, so delivered at once).
func (b *bus) notifyNow(ctx context.Context, batch []envelope) error {
	var chunk []envelope
	size := 0
	emit := func() error {
		if len(chunk) == 0 {
			return nil
		}
		body, _ := json.Marshal(notifyPayload{Origin: b.s.instance, Envelopes: chunk})
		chunk, size = nil, 0
		if len(body) > notifyMaxBytes {
			var id int64
			if err := b.s.d.Owner.QueryRow(ctx, "insert into realtime.bus_messages (body) values ($1) returning id", body).Scan(&id); err != nil {
				return fmt.Errorf("store: %w", err)
			}
			body, _ = json.Marshal(notifyPayload{Origin: b.s.instance, StoredID: id})
		}
		_, err := b.s.d.Owner.Exec(ctx, "select pg_notify($1, $2)", busChannel, string(body))
		return err
	}
	for _, e := range batch {
		n := len(e.Body) + len(e.Topic) + 128
		if size+n > notifyMaxBytes {
			if err := emit(); err != nil {
				return err
			}
		}
		chunk = append(chunk, e)
		size += n
	}
	return emit()
}

// sendWAL hands a batch read from the WAL to the other instances, synchronously: the slot
// position is confirmed only after this returns.
func (b *bus) sendWAL(ctx context.Context, batch walBatch) error {
	body, err := json.Marshal(batch)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return b.notifyNow(ctx, []envelope{{Origin: b.s.instance, Kind: "w", Body: body}})
}

// listen applies other instances' envelopes, reconnecting when the connection drops.
func (b *bus) listen() {
	defer b.s.wg.Done()
	first := true
	listening := b.s.listeningOnce()
	for b.s.ctx.Err() == nil {
		conn, err := pgx.Connect(b.s.ctx, b.s.d.DatabaseURL)
		if err == nil {
			_, err = conn.Exec(b.s.ctx, "listen "+busChannel)
		}
		if err == nil && first {
			// Ask the others for their presences so our replica starts complete. Sent
			// before this instance is ready, so that a WAL holder knows it has a peer
			// (and hands changes on) before any client here can subscribe.
			err = b.notifyNow(b.s.ctx, []envelope{{Origin: b.s.instance, Kind: "s"}, {Origin: b.s.instance, Kind: "i", Body: json.RawMessage(`{"v":0}`)}})
			first = err != nil
		}
		if err == nil {
			listening()
			for {
				n, err := conn.WaitForNotification(b.s.ctx)
				if err != nil {
					break
				}
				b.receive(n.Payload)
			}
		}
		if conn != nil {
			_ = conn.Close(context.Background())
		}
		select {
		case <-b.s.ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

func (b *bus) receive(raw string) {
	// Our own NOTIFYs come back to us: skip them without decoding (Origin is the first
	// field json.Marshal writes) unless a local delivery waits for one.
	if strings.HasPrefix(raw, `{"o":"`+b.s.instance+`"`) && b.npending.Load() == 0 {
		return
	}
	var p notifyPayload
	if json.Unmarshal([]byte(raw), &p) != nil {
		return
	}
	if p.StoredID != 0 {
		var body []byte
		if err := b.s.d.Owner.QueryRow(b.s.ctx, "select body from realtime.bus_messages where id = $1", p.StoredID).Scan(&body); err != nil {
			return
		}
		if json.Unmarshal(body, &p) != nil {
			return
		}
	}
	for _, e := range p.Envelopes {
		if e.Origin == b.s.instance {
			if e.Seq != 0 {
				b.settle(e.Seq)
			}
			continue
		}
		b.s.presence.heartbeat(e.Origin)
		switch e.Kind {
		case "b":
			frames := newFrameCache(keyTopic(e.Topic), "broadcast", e.Body)
			for _, ch := range b.s.local(e.Topic) {
				ch.deliverBroadcast(frames, nil)
			}
		case "x":
			deliverBinary(b.s, e.Topic, e.Event, e.Binary, nil)
		case "t":
			b.s.presence.apply(e.Topic, e.Key, e.Ref, e.Entry)
		case "u":
			b.s.presence.apply(e.Topic, e.Key, e.Ref, nil)
		case "w":
			var batch walBatch
			if json.Unmarshal(e.Body, &batch) == nil {
				b.s.wal.enqueue(batch)
			}
			b.s.wal.sawHolder()
		case "r":
			b.s.wal.sawHolder()
		case "i":
			b.s.interest.received(e.Origin, e.Body)
		case "a":
			if e.Key == b.s.instance {
				b.s.interest.acknowledged(e.Body)
			}
		case "s":
			// A new instance: tell it we exist, so it orders its broadcasts with ours.
			b.send(envelope{Kind: "h"})
			if b.s.wal.streaming.Load() {
				b.send(envelope{Kind: "r"})
			}
			b.s.interest.announce()
			b.s.presence.ownEntries(func(topic, key, ref string, entry presenceEntry) {
				en := entry
				b.send(envelope{Kind: "t", Topic: topic, Key: key, Ref: ref, Entry: &en})
			})
		}
	}
}

// heartbeat announces this instance, expires vanished ones and prunes stored bodies.
func (b *bus) heartbeat() {
	defer b.s.wg.Done()
	t := time.NewTicker(heartbeatEvery)
	defer t.Stop()
	for {
		select {
		case <-b.s.ctx.Done():
			return
		case <-t.C:
			b.send(envelope{Kind: "h"})
			if b.s.wal.streaming.Load() {
				b.send(envelope{Kind: "r"})
			}
			b.s.interest.announce()
			b.s.presence.expire(presenceTimeout)
			b.s.interest.forget()
			_, _ = b.s.d.Owner.Exec(b.s.ctx, "delete from realtime.bus_messages where created_at < now() - interval '1 minute'")
		}
	}
}
