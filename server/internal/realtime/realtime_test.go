package realtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/gorilla/websocket"

	"casus/server/internal/authn"
	"casus/server/internal/config"
	"casus/server/internal/testutil/testserver"
)

// A table of our own, published and guarded by RLS exactly like the app's tables.
const fixture = `
create table public.rt_notes (id bigserial primary key, owner uuid not null, body text not null, score int not null default 0);
alter table public.rt_notes enable row level security;
grant select, insert, update, delete on public.rt_notes to authenticated;
grant usage on sequence public.rt_notes_id_seq to authenticated;
create policy own on public.rt_notes for all to authenticated using (owner = auth.uid()) with check (owner = auth.uid());
alter publication supabase_realtime add table public.rt_notes;
select realtime.sync_triggers();
`

const (
	userA = "11111111-1111-4111-8111-111111111111"
	userB = "22222222-2222-4222-8222-222222222222"
)

func startServer(t *testing.T) *testserver.Server {
	srv := testserver.Start(t, func(*config.Config) {})
	if _, err := srv.Deps.Owner.Exec(context.Background(), fixture); err != nil {
		t.Fatal(err)
	}
	// The publication change reaches the server's table cache by notification: wait
	// until a subscription to the new table is accepted.
	c := dial(t, srv, "2.0.0")
	defer c.ws.Close()
	sub := map[string]any{"postgres_changes": []any{map[string]any{"event": "*", "schema": "public", "table": "rt_notes"}}}
	for start := time.Now(); c.join("realtime:ready", sub, "")["status"] != "ok"; {
		if time.Since(start) > 10*time.Second {
			t.Fatal("rt_notes never became subscribable")
		}
		time.Sleep(20 * time.Millisecond) // polling the condition, not a fixed wait
	}
	return srv
}

func token(t *testing.T, srv *testserver.Server, sub string, ttl time.Duration) string {
	c := &authn.Claims{Role: authn.RoleAuthenticated}
	c.Subject = sub
	c.ExpiresAt = jwt.NewNumericDate(time.Now().Add(ttl))
	tok, err := srv.Deps.Keys.Sign(c)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// client is a minimal Phoenix client speaking vsn 2.0.0 (or 1.0.0).
type client struct {
	t    *testing.T
	ws   *websocket.Conn
	vsn  string
	ref  int
	msgs chan []any
}

func dial(t *testing.T, srv *testserver.Server, vsn string) *client {
	u := strings.Replace(srv.URL, "http", "ws", 1) + "/realtime/v1/websocket?" + url.Values{"apikey": {srv.Deps.Keys.AnonKey}, "vsn": {vsn}}.Encode()
	ws, _, err := websocket.DefaultDialer.Dial(u, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &client{t: t, ws: ws, vsn: vsn, msgs: make(chan []any, 100)}
	go func() {
		for {
			kind, data, err := ws.ReadMessage()
			if err != nil {
				close(c.msgs)
				return
			}
			var m []any
			if kind == websocket.BinaryMessage {
				m = decodeUserBroadcast(data)
			} else if vsn == "2.0.0" {
				_ = json.Unmarshal(data, &m)
			} else {
				var o map[string]any
				_ = json.Unmarshal(data, &o)
				m = []any{o["join_ref"], o["ref"], o["topic"], o["event"], o["payload"]}
			}
			c.msgs <- m
		}
	}()
	t.Cleanup(func() { ws.Close() })
	return c
}

// decodeUserBroadcast reads vsn 2.0.0's binary broadcast frame as realtime-js does, into
// the frame's array form; a binary payload becomes {"binary": <bytes as a string>}.
func decodeUserBroadcast(b []byte) []any {
	if len(b) < 5 || b[0] != 4 {
		return []any{nil, nil, "", "", nil}
	}
	ts, es, ms, enc := int(b[1]), int(b[2]), int(b[3]), b[4]
	off := 5
	topic := string(b[off : off+ts])
	off += ts
	event := string(b[off : off+es])
	off += es
	meta := b[off : off+ms]
	off += ms
	payload := map[string]any{"type": "broadcast", "event": event}
	if enc == 1 {
		var p any
		_ = json.Unmarshal(b[off:], &p)
		payload["payload"] = p
	} else {
		payload["payload"] = map[string]any{"binary": string(b[off:])}
	}
	if ms > 0 {
		var m any
		_ = json.Unmarshal(meta, &m)
		payload["meta"] = m
	}
	return []any{nil, nil, topic, "broadcast", payload}
}

func (c *client) send(joinRef, topic, event string, payload any) string {
	c.ref++
	ref := fmt.Sprint(c.ref)
	var jr any
	if joinRef != "" {
		jr = joinRef
	}
	var frame any = []any{jr, ref, topic, event, payload}
	if c.vsn == "1.0.0" {
		frame = map[string]any{"join_ref": jr, "ref": ref, "topic": topic, "event": event, "payload": payload}
	}
	if err := c.ws.WriteJSON(frame); err != nil {
		c.t.Fatal(err)
	}
	return ref
}

// next waits for a message with the event on the topic, skipping others.
func (c *client) next(topic, event string, within time.Duration) map[string]any {
	c.t.Helper()
	deadline := time.After(within)
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				c.t.Fatalf("socket closed waiting for %s %s", topic, event)
			}
			if m[2] == topic && m[3] == event {
				p, _ := m[4].(map[string]any)
				return p
			}
		case <-deadline:
			c.t.Fatalf("no %s on %s within %s", event, topic, within)
		}
	}
}

// none asserts that no such message arrives within the window.
func (c *client) none(topic, event string, within time.Duration) {
	c.t.Helper()
	deadline := time.After(within)
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				return
			}
			if m[2] == topic && m[3] == event {
				c.t.Fatalf("unexpected %s on %s: %v", event, topic, m[4])
			}
		case <-deadline:
			return
		}
	}
}

func (c *client) join(topic string, config map[string]any, accessToken string) map[string]any {
	payload := map[string]any{"config": config}
	if accessToken != "" {
		payload["access_token"] = accessToken
	}
	ref := c.send(ref0(c), topic, "phx_join", payload)
	for {
		m := c.nextRaw(5 * time.Second)
		if m[3] == "phx_reply" && m[1] == ref {
			return m[4].(map[string]any)
		}
	}
}

func ref0(c *client) string { return fmt.Sprint(c.ref + 1) }

func (c *client) nextRaw(within time.Duration) []any {
	select {
	case m, ok := <-c.msgs:
		if !ok {
			c.t.Fatal("socket closed")
		}
		return m
	case <-time.After(within):
		c.t.Fatal("timeout")
	}
	return nil
}

func insertAs(t *testing.T, srv *testserver.Server, owner, body string) {
	if _, err := srv.Deps.Owner.Exec(context.Background(), "insert into public.rt_notes (owner, body) values ($1, $2)", owner, body); err != nil {
		t.Fatal(err)
	}
}

func TestPostgresChangesRespectRLSAndFilters(t *testing.T) {
	srv := startServer(t)
	a, b := dial(t, srv, "2.0.0"), dial(t, srv, "2.0.0")
	subAll := map[string]any{"postgres_changes": []any{map[string]any{"event": "*", "schema": "public", "table": "rt_notes"}}}
	reply := a.join("realtime:notes", subAll, token(t, srv, userA, time.Hour))
	if reply["status"] != "ok" {
		t.Fatalf("join: %v", reply)
	}
	pcs := reply["response"].(map[string]any)["postgres_changes"].([]any)
	id := pcs[0].(map[string]any)["id"]
	if id == nil || pcs[0].(map[string]any)["table"] != "rt_notes" {
		t.Fatalf("bindings: %v", pcs)
	}
	if sys := a.next("realtime:notes", "system", time.Second); sys["message"] != "Subscribed to PostgreSQL" {
		t.Fatalf("system: %v", sys)
	}
	b.join("realtime:notes", subAll, token(t, srv, userB, time.Hour))

	insertAs(t, srv, userB, "of B")
	insertAs(t, srv, userA, "of A")
	got := a.next("realtime:notes", "postgres_changes", 3*time.Second)
	data := got["data"].(map[string]any)
	rec := data["record"].(map[string]any)
	if rec["body"] != "of A" || data["type"] != "INSERT" || data["table"] != "rt_notes" || got["ids"].([]any)[0] != id {
		t.Fatalf("A got %v", got)
	}
	if cols, _ := data["columns"].([]any); len(cols) != 4 {
		t.Fatalf("columns: %v", data["columns"])
	}
	// B sees its own row, never A's.
	gotB := b.next("realtime:notes", "postgres_changes", 3*time.Second)
	if gotB["data"].(map[string]any)["record"].(map[string]any)["body"] != "of B" {
		t.Fatalf("B got %v", gotB)
	}
	a.none("realtime:notes", "postgres_changes", 300*time.Millisecond)
	b.none("realtime:notes", "postgres_changes", 300*time.Millisecond)

	// Filters: A only wants rows with score >= 5, only updates.
	f := dial(t, srv, "1.0.0")
	r := f.join("realtime:filtered", map[string]any{"postgres_changes": []any{map[string]any{"event": "UPDATE", "schema": "public", "table": "rt_notes", "filter": "score=gte.5"}}}, token(t, srv, userA, time.Hour))
	if r["status"] != "ok" {
		t.Fatalf("filtered join: %v", r)
	}
	srv.Deps.Owner.Exec(context.Background(), "update public.rt_notes set score = 3 where owner = $1", userA)
	srv.Deps.Owner.Exec(context.Background(), "update public.rt_notes set score = 7 where owner = $1", userA)
	up := f.next("realtime:filtered", "postgres_changes", 3*time.Second)
	d := up["data"].(map[string]any)
	if d["record"].(map[string]any)["score"] != float64(7) || d["old_record"].(map[string]any)["id"] == nil {
		t.Fatalf("filtered update: %v", up)
	}
	f.none("realtime:filtered", "postgres_changes", 300*time.Millisecond)

	// Large rows exceed NOTIFY's payload limit and still arrive.
	big := strings.Repeat("ș", 20000)
	insertAs(t, srv, userA, big)
	for {
		m := a.next("realtime:notes", "postgres_changes", 3*time.Second)
		if d := m["data"].(map[string]any); d["type"] == "INSERT" && d["record"].(map[string]any)["body"] == big {
			break
		}
	}
}

func TestJoinErrors(t *testing.T) {
	srv := startServer(t)
	c := dial(t, srv, "2.0.0")
	for name, cfg := range map[string]map[string]any{
		"unpublished table": {"postgres_changes": []any{map[string]any{"event": "*", "schema": "public", "table": "nope"}}},
		"bad event":         {"postgres_changes": []any{map[string]any{"event": "TRUNCATE", "schema": "public", "table": "rt_notes"}}},
	} {
		if r := c.join("realtime:"+strings.ReplaceAll(name, " ", "-"), cfg, token(t, srv, userA, time.Hour)); r["status"] != "error" {
			t.Errorf("%s: %v", name, r)
		}
	}
	if r := c.join("realtime:x", map[string]any{}, "not-a-jwt"); r["status"] != "error" {
		t.Errorf("forged token joined: %v", r)
	}
	if r := c.join("realtime:y", map[string]any{}, token(t, srv, userA, -time.Minute)); r["status"] != "error" || !strings.Contains(fmt.Sprint(r), "expired") {
		t.Errorf("expired token joined: %v", r)
	}
	// Without a valid apikey the socket is refused.
	u := strings.Replace(srv.URL, "http", "ws", 1) + "/realtime/v1/websocket?apikey=bad&vsn=2.0.0"
	if _, res, err := websocket.DefaultDialer.Dial(u, nil); err == nil || res.StatusCode != http.StatusUnauthorized {
		t.Errorf("bad apikey accepted")
	}
}

func TestBroadcastAndPresence(t *testing.T) {
	srv := startServer(t)
	a, b := dial(t, srv, "2.0.0"), dial(t, srv, "2.0.0")
	cfg := map[string]any{"broadcast": map[string]any{"self": false, "ack": true}, "presence": map[string]any{"key": "", "enabled": true}}
	a.join("realtime:room", cfg, token(t, srv, userA, time.Hour))
	a.next("realtime:room", "presence_state", time.Second)
	b.join("realtime:room", cfg, token(t, srv, userB, time.Hour))
	b.next("realtime:room", "presence_state", time.Second)

	ref := a.send("1", "realtime:room", "broadcast", map[string]any{"type": "broadcast", "event": "cursor", "payload": map[string]any{"x": 1}})
	for {
		m := a.nextRaw(2 * time.Second)
		if m[3] == "phx_reply" && m[1] == ref {
			break // ack
		}
	}
	got := b.next("realtime:room", "broadcast", 2*time.Second)
	if got["event"] != "cursor" || got["payload"].(map[string]any)["x"] != float64(1) {
		t.Fatalf("broadcast: %v", got)
	}
	a.none("realtime:room", "broadcast", 200*time.Millisecond) // self: false

	// Over HTTP with the service key.
	req, _ := http.NewRequest("POST", srv.URL+"/realtime/v1/api/broadcast", strings.NewReader(`{"messages":[{"topic":"room","event":"announce","payload":{"n":2}}]}`))
	req.Header.Set("apikey", srv.Deps.Keys.ServiceKey)
	req.Header.Set("Authorization", "Bearer "+srv.Deps.Keys.ServiceKey)
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != http.StatusAccepted {
		t.Fatalf("REST broadcast: %v %v", err, res.StatusCode)
	}
	if got := a.next("realtime:room", "broadcast", 2*time.Second); got["event"] != "announce" {
		t.Fatalf("REST broadcast delivered %v", got)
	}
	// With the anon key too, as Supabase allows on a public topic (see rest_test.go).
	req, _ = http.NewRequest("POST", srv.URL+"/realtime/v1/api/broadcast", strings.NewReader(`{"messages":[{"topic":"room","event":"x"}]}`))
	req.Header.Set("apikey", srv.Deps.Keys.AnonKey)
	if res, _ := http.DefaultClient.Do(req); res.StatusCode != http.StatusAccepted {
		t.Fatalf("anon REST broadcast: %d", res.StatusCode)
	}
	if got := a.next("realtime:room", "broadcast", 2*time.Second); got["event"] != "x" {
		t.Fatalf("anon REST broadcast delivered %v", got)
	}

	// Presence: A tracks, both see the join; A leaves, both see the leave.
	a.send("1", "realtime:room", "presence", map[string]any{"type": "presence", "event": "track", "payload": map[string]any{"studying": true}})
	diff := b.next("realtime:room", "presence_diff", 2*time.Second)
	joins := diff["joins"].(map[string]any)
	if len(joins) != 1 {
		t.Fatalf("joins: %v", diff)
	}
	for _, v := range joins {
		meta := v.(map[string]any)["metas"].([]any)[0].(map[string]any)
		if meta["studying"] != true || meta["phx_ref"] == nil {
			t.Fatalf("meta: %v", meta)
		}
	}
	// A late joiner gets the state.
	c := dial(t, srv, "2.0.0")
	c.join("realtime:room", cfg, token(t, srv, userB, time.Hour))
	if st := c.next("realtime:room", "presence_state", time.Second); len(st) != 1 {
		t.Fatalf("state: %v", st)
	}
	a.ws.Close() // dropped socket: the presence leaves
	if diff := b.next("realtime:room", "presence_diff", 2*time.Second); len(diff["leaves"].(map[string]any)) != 1 {
		t.Fatalf("leave: %v", diff)
	}
}

func TestTokenExpiryAndRefresh(t *testing.T) {
	srv := startServer(t)
	c := dial(t, srv, "2.0.0")
	sub := map[string]any{"postgres_changes": []any{map[string]any{"event": "INSERT", "schema": "public", "table": "rt_notes"}}}
	c.join("realtime:short", sub, token(t, srv, userA, 2*time.Second))
	// Refreshing before expiry keeps the channel open past the first token's life.
	// (exp has one-second granularity: the first token lives 1–2 s, the second 4–5 s.)
	c.send("1", "realtime:short", "access_token", map[string]any{"access_token": token(t, srv, userA, 5*time.Second)})
	time.Sleep(2200 * time.Millisecond)
	insertAs(t, srv, userA, "still here")
	c.next("realtime:short", "postgres_changes", 2*time.Second)
	// Then the refreshed token expires: a system error, then the channel closes.
	if sys := c.next("realtime:short", "system", 4*time.Second); sys["status"] != "error" || !strings.Contains(fmt.Sprint(sys["message"]), "expired") {
		t.Fatalf("system: %v", sys)
	}
	c.next("realtime:short", "phx_close", time.Second)
	insertAs(t, srv, userA, "after close")
	c.none("realtime:short", "postgres_changes", 500*time.Millisecond)
	// Heartbeats are answered.
	ref := c.send("", "phoenix", "heartbeat", map[string]any{})
	for m := c.nextRaw(time.Second); m[1] != ref; m = c.nextRaw(time.Second) {
	}
}

// Two instances on one database behave as one service: broadcasts, presence and
// changes reach clients on the other instance.
//
// The second instance reaches PostgreSQL through a proxy that holds every new connection
// back, as a busy machine does: a broadcast sent right after it starts must still arrive,
// so it may serve only once its LISTEN connections listen.
func TestTwoInstancesShareEvents(t *testing.T) {
	one := startServer(t)
	slow := slowConnections(t, one.Deps.DatabaseURL, 300*time.Millisecond)
	two := testserver.Start(t, func(c *config.Config) { c.DatabaseURL = slow })
	a, b := dial(t, one, "2.0.0"), dial(t, two, "2.0.0")
	cfg := map[string]any{
		"broadcast": map[string]any{"self": false}, "presence": map[string]any{"enabled": true},
		"postgres_changes": []any{map[string]any{"event": "INSERT", "schema": "public", "table": "rt_notes"}},
	}
	a.join("realtime:shared", cfg, token(t, one, userA, time.Hour))
	b.join("realtime:shared", cfg, token(t, two, userA, time.Hour))
	a.send("1", "realtime:shared", "broadcast", map[string]any{"type": "broadcast", "event": "hello", "payload": map[string]any{}})
	if got := b.next("realtime:shared", "broadcast", 3*time.Second); got["event"] != "hello" {
		t.Fatalf("cross-instance broadcast: %v", got)
	}
	a.send("1", "realtime:shared", "presence", map[string]any{"type": "presence", "event": "track", "payload": map[string]any{"on": "one"}})
	if diff := b.next("realtime:shared", "presence_diff", 3*time.Second); len(diff["joins"].(map[string]any)) != 1 {
		t.Fatalf("cross-instance presence: %v", diff)
	}
	insertAs(t, one, userA, "seen by both")
	a.next("realtime:shared", "postgres_changes", 3*time.Second)
	b.next("realtime:shared", "postgres_changes", 3*time.Second)
}

// After a dropped socket a client reconnects, rejoins and receives changes again.
func TestReconnectAfterDroppedSocket(t *testing.T) {
	srv := startServer(t)
	sub := map[string]any{"postgres_changes": []any{map[string]any{"event": "INSERT", "schema": "public", "table": "rt_notes", "filter": "owner=eq." + userA}}}
	c := dial(t, srv, "2.0.0")
	c.join("realtime:mine", sub, token(t, srv, userA, time.Hour))
	c.ws.Close()
	insertAs(t, srv, userA, "while away")
	c2 := dial(t, srv, "2.0.0")
	if r := c2.join("realtime:mine", sub, token(t, srv, userA, time.Hour)); r["status"] != "ok" {
		t.Fatalf("rejoin: %v", r)
	}
	insertAs(t, srv, userA, "after reconnect")
	// The change made while away may or may not arrive (it was committed before the
	// rejoin); the one made after must.
	for {
		got := c2.next("realtime:mine", "postgres_changes", 3*time.Second)
		if got["data"].(map[string]any)["record"].(map[string]any)["body"] == "after reconnect" {
			break
		}
	}
}

// slowConnections starts a TCP proxy in front of the database of dbURL that delays each
// new connection, and returns dbURL pointing at it.
func slowConnections(t *testing.T, dbURL string, delay time.Duration) string {
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	target := u.Host
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer in.Close()
				time.Sleep(delay) // the simulated slow connection set-up, not a wait for a result
				out, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer out.Close()
				go func() { _, _ = io.Copy(out, in) }()
				_, _ = io.Copy(in, out)
			}()
		}
	}()
	u.Host = ln.Addr().String()
	return u.String()
}

// A broadcast acknowledged to its sender comes before, on every instance, any broadcast
// sent after the acknowledgement: a client on another instance that hears itself ("self")
// hears the earlier message first, as it would on a single instance.
func TestBroadcastOrderAcrossInstances(t *testing.T) {
	one := startServer(t)
	two := testserver.Start(t, func(c *config.Config) { c.DatabaseURL = one.Deps.DatabaseURL })
	a, b := dial(t, one, "2.0.0"), dial(t, two, "2.0.0")
	a.join("realtime:ordered", map[string]any{"broadcast": map[string]any{"self": false, "ack": true}}, token(t, one, userA, time.Hour))
	b.join("realtime:ordered", map[string]any{"broadcast": map[string]any{"self": true}}, token(t, two, userB, time.Hour))
	say := func(c *client, event string) {
		c.send("1", "realtime:ordered", "broadcast", map[string]any{"type": "broadcast", "event": event, "payload": map[string]any{}})
	}
	// Each instance has heard the other once, as a running cluster has.
	say(a, "warm-a")
	if got := b.next("realtime:ordered", "broadcast", 5*time.Second); got["event"] != "warm-a" {
		t.Fatalf("warm-up from one: %v", got)
	}
	say(b, "warm-b")
	if got := b.next("realtime:ordered", "broadcast", 5*time.Second); got["event"] != "warm-b" {
		t.Fatalf("own warm-up: %v", got)
	}
	if got := a.next("realtime:ordered", "broadcast", 5*time.Second); got["event"] != "warm-b" {
		t.Fatalf("warm-up from two: %v", got)
	}
	for i := 0; i < 10; i++ {
		first, second := fmt.Sprintf("a-%d", i), fmt.Sprintf("b-%d", i)
		say(a, first)
		if r := a.next("realtime:ordered", "phx_reply", 5*time.Second); r["status"] != "ok" {
			t.Fatalf("ack: %v", r)
		}
		say(b, second)
		for _, want := range []string{first, second} {
			if got := b.next("realtime:ordered", "broadcast", 5*time.Second); got["event"] != want {
				t.Fatalf("round %d: heard %v, want %s first", i, got["event"], want)
			}
		}
		if got := a.next("realtime:ordered", "broadcast", 5*time.Second); got["event"] != second {
			t.Fatalf("round %d: one heard %v", i, got["event"])
		}
	}
}
