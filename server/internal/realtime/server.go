// Package realtime serves Supabase Realtime's Phoenix-channel protocol at
// /realtime/v1/websocket: postgres_changes filtered by row-level security, broadcast and
// presence. State shared between server instances travels through PostgreSQL
// (LISTEN/NOTIFY), and database changes are read from the WAL by one elected instance
// (wal.go), so several instances behind one load balancer deliver the same events.
package realtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"casus/server/internal/config"
	"casus/server/internal/deps"
	"casus/server/internal/httpx"
)

// Server is the realtime service.
type Server struct {
	d        deps.Deps
	instance string
	upgrader websocket.Upgrader

	mu     sync.RWMutex
	topics map[string]map[*channel]struct{} // local subscribers by topic key (topicKey)
	subs   *subIndex                        // their postgres_changes subscriptions

	presence *presenceState
	bus      *bus
	changes  *changeFeed
	wal      *walReader
	interest *interest
	limits   limits

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// listening is told once by each of the two LISTEN connections (bus and change
	// feed) when its LISTEN has taken effect.
	listening chan struct{}
}

// Tuning knobs; the defaults match realtime-js (25 s heartbeat, so 60 s without a
// frame means the client is gone).
const (
	readTimeout    = 60 * time.Second
	writeTimeout   = 10 * time.Second
	maxQueuedBytes = 8 << 20
	maxFrameBytes  = 1 << 20
	heartbeatEvery = 10 * time.Second // instance liveness for presence
	// listenWait bounds how long New waits for the LISTEN connections; past it the
	// server starts anyway and the listeners keep retrying.
	listenWait = 15 * time.Second
)

// limits bound what one socket may ask for, after Supabase Realtime's tenant limits
// (max_channels_per_client, max_events_per_second, max_payload_size_in_kb), which this
// server applies per socket.
type limits struct {
	maxChannels  int
	eventsPerSec float64
	burst        float64        // ten seconds' worth: Supabase averages its rate over a window too
	maxPayload   int            // bytes of a broadcast payload or a presence meta
	rest         *senderBudgets // REST broadcast: the same message budget per sender (rest.go)
}

func limitsFrom(c *config.Config) limits {
	or := func(v, def int) int {
		if v <= 0 {
			return def
		}
		return v
	}
	var l limits
	if c == nil {
		c = &config.Config{}
	}
	l.maxChannels = or(c.RealtimeMaxChannels, 100)
	l.eventsPerSec = float64(or(c.RealtimeMaxEventsPerSec, 100))
	l.burst = 10 * l.eventsPerSec
	l.maxPayload = or(c.RealtimeMaxPayloadKB, 256) << 10
	l.rest = newSenderBudgets(l.eventsPerSec, l.burst)
	return l
}

// New starts the fan-out listener and the change feed.
func New(ctx context.Context, d deps.Deps) (*Server, error) {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	s := &Server{
		d:        d,
		instance: hex.EncodeToString(b),
		topics:   map[string]map[*channel]struct{}{},
		subs:     newSubIndex(),
		limits:   limitsFrom(d.Config),
		upgrader: websocket.Upgrader{
			ReadBufferSize:  1024,
			WriteBufferSize: 1024,
			// One pool of write buffers for all connections keeps idle ones small.
			WriteBufferPool: &sync.Pool{},
			CheckOrigin:     func(*http.Request) bool { return true }, // access is by token, not origin
		},
		listening: make(chan struct{}, 2),
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.presence = newPresenceState(s)
	s.bus = newBus(s)
	s.changes = newChangeFeed(s)
	s.wal = newWALReader(s)
	s.interest = newInterest(s)
	if err := s.changes.start(ctx); err != nil {
		s.cancel()
		return nil, err
	}
	// The slot exists before serving, so a change committed from now on is kept for
	// whichever instance reads the slot.
	if err := s.wal.prepare(ctx); err != nil {
		s.cancel()
		s.wg.Wait()
		return nil, err
	}
	s.bus.start()
	s.wal.start()
	// A NOTIFY sent before our LISTEN takes effect reaches nobody here, so a client that
	// joined in that window would miss another instance's broadcast or a committed change.
	// Serving starts only once both connections listen.
	s.awaitListeners(ctx)
	s.wal.awaitHolder(ctx)
	return s, nil
}

func (s *Server) awaitListeners(ctx context.Context) {
	timeout := time.NewTimer(listenWait)
	defer timeout.Stop()
	for n := 0; n < 2; n++ {
		select {
		case <-s.listening:
		case <-ctx.Done():
			return
		case <-timeout.C:
			s.d.Log.Warn("realtime: starting before every LISTEN connection is up; events from other instances may be missed until it is")
			return
		}
	}
}

// listeningOnce reports the first successful LISTEN of one connection.
func (s *Server) listeningOnce() func() {
	var once sync.Once
	return func() {
		once.Do(func() { s.listening <- struct{}{} })
	}
}

// Close stops background work.
func (s *Server) Close() error {
	s.cancel()
	s.wg.Wait()
	return nil
}

// Routes registers the websocket and the REST broadcast endpoints.
func (s *Server) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /realtime/v1/websocket", s.serveWS)
	mux.Handle("POST /realtime/v1/api/broadcast", httpx.Handle(s.d.Log, s.restBroadcast))
	mux.Handle("POST /realtime/v1/api/broadcast/{topic}/events/{event}", httpx.Handle(s.d.Log, s.restBroadcastOne))
}

func (s *Server) subscribe(ch *channel) {
	s.mu.Lock()
	set := s.topics[ch.key]
	if set == nil {
		set = map[*channel]struct{}{}
		s.topics[ch.key] = set
	}
	if _, again := set[ch]; !again {
		set[ch] = struct{}{}
		s.subs.add(ch)
	}
	s.mu.Unlock()
}

func (s *Server) unsubscribe(ch *channel) {
	s.mu.Lock()
	if set := s.topics[ch.key]; set != nil {
		if _, ok := set[ch]; ok {
			s.subs.remove(ch)
		}
		delete(set, ch)
		if len(set) == 0 {
			delete(s.topics, ch.key)
		}
	}
	s.mu.Unlock()
}

// privateKey prefixes the key of a private channel's topic. A private and a public channel
// of the same name are different topics, as in Supabase (its tenant_topic): neither
// receives the other's broadcasts or presence. Real topics start with "realtime:", so no
// public key starts with the prefix.
const privateKey = "private:"

// topicKey is the key of a topic's subscribers, presences and bus messages.
func topicKey(topic string, private bool) string {
	if private {
		return privateKey + topic
	}
	return topic
}

// keyTopic is the topic a key's frames carry.
func keyTopic(key string) string { return strings.TrimPrefix(key, privateKey) }

// local returns a snapshot of this instance's subscribers of a topic key.
func (s *Server) local(key string) []*channel {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]*channel, 0, len(s.topics[key]))
	for ch := range s.topics[key] {
		out = append(out, ch)
	}
	return out
}

// changeCandidates returns the local channels whose subscriptions may take c (subIndex).
func (s *Server) changeCandidates(c change) []*channel {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.subs.candidates(c)
}
