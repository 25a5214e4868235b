package realtime

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"casus/server/internal/authn"
	"casus/server/internal/realtime/phoenix"
)

// conn is one websocket connection and the channels joined over it.
type conn struct {
	s      *Server
	ws     *websocket.Conn
	vsn    string
	apiKey string
	done   chan struct{}
	once   sync.Once

	// Outgoing frames: a slice that grows only while the client lags, so idle
	// connections hold no buffer; bounded by bytes so a stuck client cannot hoard memory.
	qmu    sync.Mutex
	queue  [][]byte
	queued int
	wake   chan struct{}

	mu       sync.Mutex
	channels map[string]*channel // by topic

	// The client's message budget (a token bucket), touched only by the reader.
	tokens   float64
	lastSeen time.Time
	// hangup asks the writer to send what is queued, then close the socket.
	hangup     chan struct{}
	hangupOnce sync.Once
}

// serveWS verifies the apikey (realtime-js sends it as a query parameter) and upgrades.
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	if s.d.Keys.Identify(r).KeyErr != nil {
		http.Error(w, `{"message":"Invalid API key"}`, http.StatusUnauthorized)
		return
	}
	vsn := r.URL.Query().Get("vsn")
	if vsn == "" {
		vsn = phoenix.V1
	}
	if vsn != phoenix.V1 && vsn != phoenix.V2 {
		http.Error(w, `{"message":"Unsupported vsn"}`, http.StatusBadRequest)
		return
	}
	ws, err := s.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader already answered
	}
	ws.SetReadLimit(maxFrameBytes)
	c := &conn{s: s, ws: ws, vsn: vsn, apiKey: authn.APIKey(r), done: make(chan struct{}), hangup: make(chan struct{}), wake: make(chan struct{}, 1), channels: map[string]*channel{}}
	go c.writePump()
	c.readPump()
}

func (c *conn) close() {
	c.once.Do(func() {
		close(c.done)
		c.mu.Lock()
		chans := make([]*channel, 0, len(c.channels))
		for _, ch := range c.channels {
			chans = append(chans, ch)
		}
		c.channels = map[string]*channel{}
		c.mu.Unlock()
		for _, ch := range chans {
			ch.teardown()
		}
		_ = c.ws.Close()
	})
}

// push queues a frame; a client too slow to drain its queue is disconnected rather
// than allowed to hold memory or block fan-out.
func (c *conn) push(m phoenix.Message) { c.pushFrame(phoenix.Encode(c.vsn, m)) }

// pushFrame queues an already encoded frame (fan-out encodes once per version). A
// client that lets more than maxQueuedBytes pile up is disconnected.
func (c *conn) pushFrame(frame []byte) {
	c.qmu.Lock()
	if c.queued+len(frame) > maxQueuedBytes {
		c.qmu.Unlock()
		select {
		case <-c.done:
		default:
			c.s.d.Log.Warn("realtime: client too slow, disconnecting", "queued_bytes", c.queued)
			go c.close()
		}
		return
	}
	c.queue = append(c.queue, frame)
	c.queued += len(frame)
	c.qmu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *conn) writePump() {
	defer c.close()
	for {
		select {
		case <-c.wake:
			if c.flush() != nil {
				return
			}
		case <-c.hangup:
			if c.flush() != nil {
				return
			}
			_ = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.ClosePolicyViolation, "Too many messages per second"), time.Now().Add(time.Second))
			return
		case <-c.done:
			_ = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
			return
		}
	}
}

// flush writes the queued frames.
func (c *conn) flush() error {
	c.qmu.Lock()
	frames := c.queue
	c.queue, c.queued = nil, 0
	c.qmu.Unlock()
	_ = c.ws.SetWriteDeadline(time.Now().Add(writeTimeout))
	for _, frame := range frames {
		// Text frames are JSON ('[' or '{'); the only binary frame is the user broadcast.
		kind := websocket.TextMessage
		if len(frame) > 0 && frame[0] == phoenix.KindUserBroadcast {
			kind = websocket.BinaryMessage
		}
		if err := c.ws.WriteMessage(kind, frame); err != nil {
			return err
		}
	}
	return nil
}

func (c *conn) readPump() {
	hangingUp := false
	defer func() {
		if !hangingUp {
			c.close()
		}
	}()
	for {
		_ = c.ws.SetReadDeadline(time.Now().Add(readTimeout))
		kind, data, err := c.ws.ReadMessage()
		if err != nil {
			return
		}
		if !c.allow(time.Now()) {
			// Over max_events_per_second: every channel is shut down as Supabase does
			// ("system" error, then phx_close), and the socket is closed after them, so a
			// flooding client stops costing anything.
			c.shutdownAll("Too many messages per second")
			hangingUp = true
			c.hangupOnce.Do(func() { close(c.hangup) })
			return
		}
		var m phoenix.Message
		if kind == websocket.BinaryMessage {
			m, err = phoenix.DecodeBinary(data)
		} else {
			m, err = phoenix.Decode(c.vsn, data)
		}
		if err != nil {
			continue // Phoenix ignores frames it cannot read
		}
		c.handle(m)
	}
}

// allow spends one message of the socket's budget: eventsPerSec sustained, burst at once.
func (c *conn) allow(now time.Time) bool {
	lim := c.s.limits
	if c.lastSeen.IsZero() {
		c.tokens = lim.burst
	} else {
		c.tokens = min(lim.burst, c.tokens+now.Sub(c.lastSeen).Seconds()*lim.eventsPerSec)
	}
	c.lastSeen = now
	if c.tokens < 1 {
		return false
	}
	c.tokens--
	return true
}

// shutdownAll closes every channel of the socket with a system error.
func (c *conn) shutdownAll(message string) {
	c.mu.Lock()
	chans := make([]*channel, 0, len(c.channels))
	for _, ch := range c.channels {
		chans = append(chans, ch)
	}
	c.mu.Unlock()
	for _, ch := range chans {
		ch.shutdown(message)
	}
}

func (c *conn) channel(topic string) *channel {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.channels[topic]
}

func (c *conn) handle(m phoenix.Message) {
	if m.Topic == phoenix.TopicPhoenix {
		if m.Event == phoenix.EventHeartbeat {
			c.push(phoenix.Reply(m, "ok", map[string]any{}))
		}
		return
	}
	if m.Event == phoenix.EventJoin {
		c.join(m)
		return
	}
	ch := c.channel(m.Topic)
	if ch == nil || (m.JoinRef != nil && ch.joinRef != nil && *m.JoinRef != *ch.joinRef) {
		// Not joined (or a stale join): Phoenix answers with a close for that topic.
		c.push(phoenix.Message{JoinRef: m.JoinRef, Ref: m.Ref, Topic: m.Topic, Event: phoenix.EventReply,
			Payload: json.RawMessage(`{"status":"error","response":{"reason":"unmatched topic"}}`)})
		return
	}
	switch m.Event {
	case phoenix.EventLeave:
		c.push(phoenix.Reply(m, "ok", map[string]any{}))
		c.leave(ch)
		c.push(phoenix.Push(ch.joinRef, ch.topic, phoenix.EventClose, map[string]any{}))
	case "access_token":
		ch.refreshToken(m)
	case "broadcast":
		ch.broadcast(m)
	case "presence":
		ch.presenceEvent(m)
	default:
		c.push(phoenix.Reply(m, "ok", map[string]any{}))
	}
}

func (c *conn) leave(ch *channel) {
	c.mu.Lock()
	if c.channels[ch.topic] == ch {
		delete(c.channels, ch.topic)
	}
	c.mu.Unlock()
	ch.teardown()
}

// claimsFor verifies the token a join or refresh carries, falling back to the apikey.
func (c *conn) claimsFor(token string) (*authn.Claims, error) {
	if token == "" {
		token = c.apiKey
	}
	return c.s.d.Keys.Verify(token)
}
