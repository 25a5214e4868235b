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
	// key is the topic key (topicKey): a private channel's differs from a public one's.
	key     string
	private bool

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

	// pol is a private channel's authorisation (authz.go), as far as evaluated.
	pol policies
	// replayed holds the ids of the messages replayed at join: not delivered again live.
	replayed map[string]bool
	// token is the one the policies were last decided for: a refresh with the same token
	// changes nothing (Supabase ignores it too).
	token string
}

// policies is what realtime.messages RLS lets a private channel's identity do on its
// topic; nil means not evaluated yet (Supabase's Policies struct).
type policies struct {
	broadcastRead, presenceRead, broadcastWrite, presenceWrite *bool
}

func isTrue(b *bool) bool { return b != nil && *b }

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
			Ack    bool            `json:"ack"`
			Self   bool            `json:"self"`
			Replay json.RawMessage `json:"replay"`
			// ReplicationReady asks for a system message once changes are read from the
			// WAL (true or "true", as Supabase's FlexibleBoolean takes it).
			ReplicationReady json.RawMessage `json:"replication_ready"`
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
		self: p.Config.Broadcast.Self, ack: p.Config.Broadcast.Ack, presKey: p.Config.Presence.Key,
		private: p.Config.Private, key: topicKey(m.Topic, p.Config.Private), token: p.AccessToken}
	subTopic := strings.TrimPrefix(m.Topic, "realtime:")
	replay := len(p.Config.Broadcast.Replay) > 0 && string(p.Config.Broadcast.Replay) != "null"
	if replay && !ch.private {
		c.push(errorReply(m, "UnableToReplayMessages: Replay is not allowed for public channels"))
		return
	}
	if ch.private {
		// Supabase's join: read policies for broadcast (and presence when enabled); the
		// channel joins when either is readable.
		exts := []string{extBroadcast}
		if p.Config.Presence.Enabled {
			exts = append(exts, extPresence)
		}
		read, err := c.s.authorizeRead(claims, subTopic, exts)
		if err != nil {
			c.s.d.Log.Warn("realtime: read authorisation failed", "err", err)
			c.push(errorReply(m, "Unauthorized: You do not have permissions to read from this Channel topic: "+subTopic))
			return
		}
		ch.pol = policiesFrom(read)
		if !read[extBroadcast] && !read[extPresence] {
			c.push(errorReply(m, "Unauthorized: You do not have permissions to read from this Channel topic: "+subTopic))
			return
		}
	}
	var replayed []storedMessage
	if replay {
		if !isTrue(ch.pol.broadcastRead) {
			c.push(errorReply(m, "Unauthorized: You do not have permissions to read from this Channel topic: "+subTopic))
			return
		}
		since, limit, ok := replayParams(p.Config.Broadcast.Replay)
		if !ok {
			c.push(errorReply(m, "UnableToReplayMessages: Replay params are not valid"))
			return
		}
		var err error
		if replayed, err = c.s.replay(subTopic, since, limit); err != nil {
			c.s.d.Log.Warn("realtime: replay failed", "err", err)
			c.push(errorReply(m, "UnableToReplayMessages: Realtime was unable to replay messages"))
			return
		}
		ch.replayed = make(map[string]bool, len(replayed))
		for _, msg := range replayed {
			ch.replayed[msg.id] = true
		}
	}
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
	// With peers, the WAL holder must know the tables before the reply: a change
	// committed after it is then handed on.
	c.s.interest.await(ch.pgSubs)
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
	if p.Config.Presence.Enabled && ch.readsPresence() {
		c.push(phoenix.Push(ch.joinRef, ch.topic, "presence_state", c.s.presence.state(ch.key)))
	}
	if r := strings.Trim(string(p.Config.Broadcast.ReplicationReady), `"`); r == "true" {
		go ch.notifyReplicationReady()
	}
	// Replayed messages follow the join reply, oldest first, marked as Supabase marks them.
	for _, msg := range replayed {
		if frame := msg.frame(c.vsn, ch.topic, map[string]any{"replayed": true, "id": msg.id}); frame != nil {
			c.pushFrame(frame)
		}
	}
}

func policiesFrom(read map[string]bool) policies {
	var pol policies
	if v, ok := read[extBroadcast]; ok {
		pol.broadcastRead = &v
	}
	if v, ok := read[extPresence]; ok {
		pol.presenceRead = &v
	}
	return pol
}

// readsBroadcast reports whether broadcasts reach the channel: always on a public
// channel, on a private one when its read policy allowed it.
func (ch *channel) readsBroadcast() bool {
	if !ch.private {
		return true
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return isTrue(ch.pol.broadcastRead)
}

// readsPresence is readsBroadcast for presence state and diffs.
func (ch *channel) readsPresence() bool {
	if !ch.private {
		return true
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return isTrue(ch.pol.presenceRead)
}

// mayWrite decides (once per identity, as Supabase caches its policies until the token
// changes) whether a private channel's identity may send on the extension.
func (ch *channel) mayWrite(ext string) bool {
	ch.mu.Lock()
	slot := &ch.pol.broadcastWrite
	if ext == extPresence {
		slot = &ch.pol.presenceWrite
	}
	if *slot != nil {
		ok := **slot
		ch.mu.Unlock()
		return ok
	}
	claims := ch.claims
	readPresence := ext == extPresence && ch.pol.presenceRead == nil
	ch.mu.Unlock()
	sub := strings.TrimPrefix(ch.topic, "realtime:")
	var read map[string]bool
	if readPresence {
		// Presence enabled by a track: its read policy is decided now, as Supabase does.
		var err error
		if read, err = ch.c.s.authorizeRead(claims, sub, []string{extPresence}); err != nil {
			ch.c.s.d.Log.Warn("realtime: read authorisation failed", "err", err)
			return false
		}
	}
	ok, err := ch.c.s.authorizeWrite(claims, sub, ext)
	if err != nil {
		ch.c.s.d.Log.Warn("realtime: write authorisation failed", "err", err)
		return false
	}
	ch.mu.Lock()
	if readPresence {
		v := read[extPresence]
		ch.pol.presenceRead = &v
	}
	*slot = &ok
	ch.mu.Unlock()
	return ok
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

// notifyReplicationReady tells a channel that opted in (config.broadcast.replication_ready)
// when changes are read from the WAL, here or by the instance holding the slot — at once
// when they already are — or closes it when that does not happen within a minute, as
// Supabase's Realtime does.
func (ch *channel) notifyReplicationReady() {
	deadline := time.Now().Add(replicationReadyTimeout)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		ch.mu.Lock()
		closed := ch.closed
		ch.mu.Unlock()
		if closed {
			return
		}
		if ch.c.s.wal.ready() {
			ch.c.push(phoenix.Push(ch.joinRef, ch.topic, "system", map[string]any{
				"extension": "system", "status": "ok", "message": "Replication connection established",
				"channel": strings.TrimPrefix(ch.topic, "realtime:"),
			}))
			return
		}
		if time.Now().After(deadline) {
			ch.shutdown("Replication connection was not established in time")
			return
		}
		select {
		case <-tick.C:
		case <-ch.c.s.ctx.Done():
			return
		}
	}
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
	sameToken := p.AccessToken == ch.token
	ch.token = p.AccessToken
	ch.mu.Unlock()
	if ch.private && !sameToken {
		// New claims, new policies: read is decided again (a revoked read closes the
		// channel, as Supabase does), write on the next send.
		ch.mu.Lock()
		prev := ch.pol
		ch.mu.Unlock()
		var exts []string
		if prev.broadcastRead != nil {
			exts = append(exts, extBroadcast)
		}
		if prev.presenceRead != nil {
			exts = append(exts, extPresence)
		}
		sub := strings.TrimPrefix(ch.topic, "realtime:")
		read, err := ch.c.s.authorizeRead(claims, sub, exts)
		if err != nil {
			ch.c.s.d.Log.Warn("realtime: read authorisation failed", "err", err)
			read = map[string]bool{}
			for _, e := range exts {
				read[e] = false
			}
		}
		next := policiesFrom(read)
		if (isTrue(prev.broadcastRead) && !isTrue(next.broadcastRead)) || (isTrue(prev.presenceRead) && !isTrue(next.presenceRead)) {
			ch.shutdown("You no longer have permission to read from this Channel topic: " + sub)
			return
		}
		ch.mu.Lock()
		ch.pol = next // write policies: nil again, decided on the next send
		ch.mu.Unlock()
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
		ch.c.s.presence.untrack(ch.key, ch.presKey, ch.c.s.instance+"/"+fmt.Sprintf("%p", ch))
	}
}

// broadcast relays a client's broadcast to the topic's other subscribers everywhere.
// Like Supabase: a broadcast the sender may not make is dropped without a reply, and an
// oversized one is dropped, answered with payload_size_exceeded when acknowledged.
func (ch *channel) broadcast(m phoenix.Message) {
	if !ch.mayPublish() {
		return
	}
	size := len(m.Payload)
	if m.Binary != nil {
		size = len(m.Binary)
	}
	if size > ch.c.s.limits.maxPayload {
		if ch.ack && m.Ref != nil {
			ch.c.push(phoenix.Reply(m, "error", "payload_size_exceeded"))
		}
		return
	}
	var delivered <-chan struct{}
	if m.Binary != nil {
		// A binary payload stays binary: vsn 2.0.0 subscribers get the binary frame.
		delivered = ch.c.s.bus.publishBinary(ch.key, m.UserEvent, m.Binary, ch)
	} else {
		delivered = ch.c.s.bus.publishBroadcast(ch.key, m.Payload, ch)
	}
	if ch.ack && m.Ref != nil {
		// Acknowledged once in the cluster's order (publish bounds the wait).
		if delivered != nil {
			<-delivered
		}
		ch.c.push(phoenix.Reply(m, "ok", map[string]any{}))
	}
}

// mayPublish reports whether the channel's identity may send broadcast and presence on
// its topic. A topic that names accounts by id (the app's "progress-<user id>") belongs to
// them: only they, and the service role, send there. Decided once per identity.
func (ch *channel) mayPublish() bool {
	if ch.private {
		return ch.mayWrite(extBroadcast)
	}
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
	if !ch.readsBroadcast() {
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
	// A private channel asks its presence write policy when tracking (untracking one's own
	// entry is always allowed, as in Supabase); a public one applies the topic rule.
	var allowed bool
	if ch.private {
		allowed = p.Event != "track" || ch.mayWrite(extPresence)
	} else {
		allowed = ch.mayPublish()
	}
	if !allowed {
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
		ch.c.s.presence.track(ch.key, ch.presKey, ref, meta)
	case "untrack":
		ch.mu.Lock()
		ch.tracked = false
		ch.mu.Unlock()
		ch.c.s.presence.untrack(ch.key, ch.presKey, ref)
	default:
		ch.c.push(errorReply(m, "unknown presence event"))
		return
	}
	ch.c.push(phoenix.Reply(m, "ok", map[string]any{}))
}
