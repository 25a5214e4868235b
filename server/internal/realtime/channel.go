package realtime

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"casus/server/internal/authn"
	"casus/server/internal/realtime/phoenix"
)

// channel is one joined topic on one connection.
type channel struct {
	c       *conn
	topic   string
	joinRef *string

	mu      sync.Mutex
	claims  *authn.Claims
	expiry  *time.Timer
	pgSubs  []pgSub
	self    bool
	ack     bool
	presKey string
	tracked bool
	closed  bool

	// publishFor is the subject whose right to send on the topic was last decided
	// (publishAllowed), so the check costs at most one query per identity.
	publishFor     *string
	publishAllowed bool
}

// pgSub is one postgres_changes subscription of a channel.
type pgSub struct {
	ID     uint32 `json:"id"`
	Event  string `json:"event"`
	Schema string `json:"schema"`
	Table  string `json:"table,omitempty"`
	Filter string `json:"filter,omitempty"`
	// Select is the column subset asked for (Supabase's "select" option); the primary key
	// is always sent too.
	Select []string `json:"select,omitempty"`
	filter *changeFilter
}

type joinPayload struct {
	Config struct {
		Broadcast struct {
			Ack  bool `json:"ack"`
			Self bool `json:"self"`
		} `json:"broadcast"`
		Presence struct {
			Key     string `json:"key"`
			Enabled bool   `json:"enabled"`
		} `json:"presence"`
		PostgresChanges []struct {
			Event  string          `json:"event"`
			Schema string          `json:"schema"`
			Table  string          `json:"table"`
			Filter string          `json:"filter"`
			Select json.RawMessage `json:"select"`
		} `json:"postgres_changes"`
		Private bool `json:"private"`
	} `json:"config"`
	AccessToken string `json:"access_token"`
}

func errorReply(m phoenix.Message, reason string) phoenix.Message {
	return phoenix.Reply(m, "error", map[string]string{"reason": reason})
}

func (c *conn) join(m phoenix.Message) {
	var p joinPayload
	if len(m.Payload) > 0 && json.Unmarshal(m.Payload, &p) != nil {
		c.push(errorReply(m, "malformed join payload"))
		return
	}
	if !strings.HasPrefix(m.Topic, "realtime:") {
		c.push(errorReply(m, "unknown topic: topics start with realtime:"))
		return
	}
	if p.Config.Private {
		c.push(errorReply(m, "Private channels are not supported by this server; use a public channel"))
		return
	}
	c.mu.Lock()
	_, rejoin := c.channels[m.Topic]
	full := !rejoin && len(c.channels) >= c.s.limits.maxChannels
	c.mu.Unlock()
	if full {
		c.push(errorReply(m, "ChannelRateLimitReached: Too many channels"))
		return
	}
	claims, err := c.claimsFor(p.AccessToken)
	if err != nil {
		c.push(errorReply(m, tokenReason(err)))
		return
	}
	ch := &channel{c: c, topic: m.Topic, joinRef: m.JoinRef, claims: claims,
		self: p.Config.Broadcast.Self, ack: p.Config.Broadcast.Ack, presKey: p.Config.Presence.Key}
	if ch.presKey == "" {
		ch.presKey = randomKey()
	}
	// A filter Realtime refuses still lets the channel join (broadcast and presence work),
	// but none of its postgres_changes subscriptions is made: Supabase stores them in one
	// transaction and reports the failure as a postgres_changes system error.
	var subsErr *filterError
	for _, pc := range p.Config.PostgresChanges {
		sub, err := c.s.changes.validate(pc.Event, pc.Schema, pc.Table, pc.Filter, pc.Select)
		if fe, ok := err.(*filterError); ok {
			if subsErr == nil {
				subsErr = fe
			}
		} else if err != nil {
			c.push(errorReply(m, err.Error()))
			return
		}
		ch.pgSubs = append(ch.pgSubs, sub)
	}
	subs := make([]pgSub, len(ch.pgSubs))
	copy(subs, ch.pgSubs)
	if subsErr != nil {
		ch.pgSubs = nil
	}
	// A second join of the same topic replaces the first, as Phoenix does.
	c.mu.Lock()
	old := c.channels[m.Topic]
	c.channels[m.Topic] = ch
	c.mu.Unlock()
	if old != nil {
		old.teardown()
	}
	c.s.subscribe(ch)
	ch.armExpiry()

	c.push(phoenix.Reply(m, "ok", map[string]any{"postgres_changes": subs}))
	if len(subs) > 0 {
		status, message := "ok", "Subscribed to PostgreSQL"
		if subsErr != nil {
			status, message = "error", subsErr.msg
		}
		c.push(phoenix.Push(ch.joinRef, ch.topic, "system", map[string]any{
			"status": status, "message": message, "extension": "postgres_changes",
			"channel": strings.TrimPrefix(ch.topic, "realtime:"),
		}))
	}
	if p.Config.Presence.Enabled {
		c.push(phoenix.Push(ch.joinRef, ch.topic, "presence_state", c.s.presence.state(ch.topic)))
	}
}

func tokenReason(err error) string {
	if err == authn.ErrExpiredToken {
		return "InvalidJWTToken: Token has expired"
	}
	return "InvalidJWTToken: invalid token"
}

func randomKey() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// armExpiry closes the channel when its token expires, as Supabase Realtime does.
func (ch *channel) armExpiry() {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.expiry != nil {
		ch.expiry.Stop()
		ch.expiry = nil
	}
	if ch.claims == nil || ch.claims.ExpiresAt == nil {
		return
	}
	d := time.Until(ch.claims.ExpiresAt.Time)
	if d < 0 {
		d = 0
	}
	ch.expiry = time.AfterFunc(d, ch.expire)
}

// shutdown closes the channel with a system error, as Supabase Realtime's
// shutdown_response does.
func (ch *channel) shutdown(message string) {
	ch.c.push(phoenix.Push(ch.joinRef, ch.topic, "system", map[string]any{
		"extension": "system", "status": "error", "message": message,
		"channel": strings.TrimPrefix(ch.topic, "realtime:"),
	}))
	ch.c.leave(ch)
	ch.c.push(phoenix.Push(ch.joinRef, ch.topic, phoenix.EventClose, map[string]any{}))
}

func (ch *channel) expire() {
	ch.c.push(phoenix.Push(ch.joinRef, ch.topic, "system", map[string]any{
		"extension": "system", "status": "error", "message": "Token has expired 0 seconds ago",
	}))
	ch.c.leave(ch)
	ch.c.push(phoenix.Push(ch.joinRef, ch.topic, phoenix.EventClose, map[string]any{}))
}

func (ch *channel) refreshToken(m phoenix.Message) {
	var p struct {
		AccessToken string `json:"access_token"`
	}
	_ = json.Unmarshal(m.Payload, &p)
	claims, err := ch.c.claimsFor(p.AccessToken)
	if err != nil {
		ch.c.push(phoenix.Push(ch.joinRef, ch.topic, "system", map[string]any{
			"extension": "system", "status": "error", "message": tokenReason(err),
		}))
		ch.c.leave(ch)
		ch.c.push(phoenix.Push(ch.joinRef, ch.topic, phoenix.EventClose, map[string]any{}))
		return
	}
	ch.mu.Lock()
	ch.claims = claims
	ch.mu.Unlock()
	ch.armExpiry()
}

// currentClaims is the identity RLS checks use for this channel.
func (ch *channel) currentClaims() *authn.Claims {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return ch.claims
}

// teardown detaches the channel: no more deliveries, presence left.
func (ch *channel) teardown() {
	ch.mu.Lock()
	if ch.closed {
		ch.mu.Unlock()
		return
	}
	ch.closed = true
	if ch.expiry != nil {
		ch.expiry.Stop()
	}
	tracked := ch.tracked
	ch.mu.Unlock()
	ch.c.s.unsubscribe(ch)
	if tracked {
		ch.c.s.presence.untrack(ch.topic, ch.presKey, ch.c.s.instance+"/"+fmt.Sprintf("%p", ch))
	}
}

// broadcast relays a client's broadcast to the topic's other subscribers everywhere.
// Like Supabase: a broadcast the sender may not make is dropped without a reply, and an
// oversized one is dropped, answered with payload_size_exceeded when acknowledged.
func (ch *channel) broadcast(m phoenix.Message) {
	if !ch.mayPublish() {
		return
	}
	if len(m.Payload) > ch.c.s.limits.maxPayload {
		if ch.ack && m.Ref != nil {
			ch.c.push(phoenix.Reply(m, "error", "payload_size_exceeded"))
		}
		return
	}
	ch.c.s.bus.publishBroadcast(ch.topic, m.Payload, ch)
	if ch.ack && m.Ref != nil {
		ch.c.push(phoenix.Reply(m, "ok", map[string]any{}))
	}
}

// mayPublish reports whether the channel's identity may send broadcast and presence on
// its topic. A topic that names accounts by id (the app's "progress-<user id>") belongs to
// them: only they, and the service role, send there. Decided once per identity.
func (ch *channel) mayPublish() bool {
	claims := ch.currentClaims()
	if claims.Role == authn.RoleServiceRole {
		return true
	}
	ch.mu.Lock()
	if ch.publishFor != nil && *ch.publishFor == claims.Subject {
		ok := ch.publishAllowed
		ch.mu.Unlock()
		return ok
	}
	ch.mu.Unlock()
	ok := ch.c.s.topicOpenTo(ch.topic, claims.Subject)
	ch.mu.Lock()
	sub := claims.Subject
	ch.publishFor, ch.publishAllowed = &sub, ok
	ch.mu.Unlock()
	return ok
}

// deliverBroadcast pushes a broadcast unless it is the sender's own without "self".
func (ch *channel) deliverBroadcast(frames *frameCache, from *channel) {
	if from == ch && !ch.self {
		return
	}
	ch.c.pushFrame(frames.get(ch.c.vsn))
}

// frameCache encodes one server push at most once per protocol version, however many
// subscribers receive it.
type frameCache struct {
	msg    phoenix.Message
	v1, v2 []byte
}

func newFrameCache(topic, event string, payload json.RawMessage) *frameCache {
	return &frameCache{msg: phoenix.Push(nil, topic, event, payload)}
}

func (f *frameCache) get(vsn string) []byte {
	if vsn == phoenix.V1 {
		if f.v1 == nil {
			f.v1 = phoenix.Encode(vsn, f.msg)
		}
		return f.v1
	}
	if f.v2 == nil {
		f.v2 = phoenix.Encode(vsn, f.msg)
	}
	return f.v2
}

func (ch *channel) presenceEvent(m phoenix.Message) {
	var p struct {
		Event   string          `json:"event"`
		Payload json.RawMessage `json:"payload"`
	}
	if json.Unmarshal(m.Payload, &p) != nil {
		ch.c.push(errorReply(m, "malformed presence payload"))
		return
	}
	ref := ch.c.s.instance + "/" + fmt.Sprintf("%p", ch)
	if !ch.mayPublish() {
		ch.c.push(phoenix.Reply(m, "error", map[string]any{}))
		return
	}
	switch p.Event {
	case "track":
		if len(p.Payload) > ch.c.s.limits.maxPayload {
			ch.shutdown("Track message size exceeded")
			return
		}
		meta := map[string]any{}
		if len(p.Payload) > 0 && json.Unmarshal(p.Payload, &meta) != nil {
			ch.c.push(errorReply(m, "presence payload must be an object"))
			return
		}
		ch.mu.Lock()
		ch.tracked = true
		ch.mu.Unlock()
		ch.c.s.presence.track(ch.topic, ch.presKey, ref, meta)
	case "untrack":
		ch.mu.Lock()
		ch.tracked = false
		ch.mu.Unlock()
		ch.c.s.presence.untrack(ch.topic, ch.presKey, ref)
	default:
		ch.c.push(errorReply(m, "unknown presence event"))
		return
	}
	ch.c.push(phoenix.Reply(m, "ok", map[string]any{}))
}
