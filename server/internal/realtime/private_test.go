package realtime_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"casus/server/internal/authn"
	"casus/server/internal/db"
	"casus/server/internal/testutil/testserver"
)

// Policies on realtime.messages as a Supabase project writes them: members of a room may
// read it (broadcast and presence), members with can_send may also send and track.
const privateFixture = `
create table public.rt_members (user_id uuid not null, room text not null, can_send boolean not null default false);
grant select on public.rt_members to authenticated;
create policy members_read on realtime.messages for select to authenticated using (
  exists (select 1 from public.rt_members m where m.user_id = auth.uid() and m.room = realtime.topic())
  and realtime.messages.extension in ('broadcast', 'presence'));
create policy members_send on realtime.messages for insert to authenticated with check (
  exists (select 1 from public.rt_members m where m.user_id = auth.uid() and m.room = realtime.topic() and m.can_send));
`

const userC = "33333333-3333-4333-8333-333333333333"

func startPrivate(t *testing.T) *testserver.Server {
	t.Helper()
	srv := startServer(t)
	ctx := context.Background()
	if _, err := srv.Deps.Owner.Exec(ctx, privateFixture); err != nil {
		t.Fatal(err)
	}
	// A sends in room:1, C only reads it, B is no member.
	if _, err := srv.Deps.Owner.Exec(ctx, `insert into public.rt_members values ($1, 'room:1', true), ($2, 'room:1', false)`, userA, userC); err != nil {
		t.Fatal(err)
	}
	return srv
}

func private(extra map[string]any) map[string]any {
	cfg := map[string]any{"private": true}
	for k, v := range extra {
		cfg[k] = v
	}
	return cfg
}

func reason(reply map[string]any) any {
	resp, _ := reply["response"].(map[string]any)
	return resp["reason"]
}

const readRefusal = "Unauthorized: You do not have permissions to read from this Channel topic: room:1"

// A private join is decided by the caller's SELECT policies on realtime.messages for the
// topic; the refusal is Supabase's join error. Broadcast needs the INSERT policy: a reader
// without it is dropped silently (no ack), and nothing crosses between the private and the
// public channel of the same name.
func TestPrivateChannelJoinAndBroadcastByRLS(t *testing.T) {
	srv := startPrivate(t)
	a, b, c, pub := dial(t, srv, "2.0.0"), dial(t, srv, "2.0.0"), dial(t, srv, "1.0.0"), dial(t, srv, "2.0.0")
	ack := map[string]any{"broadcast": map[string]any{"ack": true}}
	if r := a.join("realtime:room:1", private(ack), token(t, srv, userA, time.Hour)); r["status"] != "ok" {
		t.Fatalf("member join: %v", r)
	}
	if r := c.join("realtime:room:1", private(ack), token(t, srv, userC, time.Hour)); r["status"] != "ok" {
		t.Fatalf("reader join: %v", r)
	}
	if r := b.join("realtime:room:1", private(nil), token(t, srv, userB, time.Hour)); r["status"] != "error" || reason(r) != readRefusal {
		t.Fatalf("non-member join: %v", r)
	}
	if r := b.join("realtime:room:1", private(nil), ""); r["status"] != "error" || reason(r) != readRefusal {
		t.Fatalf("anon join: %v", r)
	}
	if r := pub.join("realtime:room:1", map[string]any{}, ""); r["status"] != "ok" {
		t.Fatalf("public join: %v", r)
	}

	// The reader's broadcast is refused by its insert policy: no ack, nobody hears it.
	ref := c.send("", "realtime:room:1", "broadcast", map[string]any{"type": "broadcast", "event": "forged", "payload": map[string]any{"n": 0}})
	a.none("realtime:room:1", "broadcast", 500*time.Millisecond)
	for _, m := range drain(c) {
		if m[3] == "phx_reply" && m[1] == ref {
			t.Fatalf("refused broadcast acknowledged: %v", m)
		}
	}

	// The member's broadcast reaches the reader, not the public channel of the same name.
	a.send("", "realtime:room:1", "broadcast", map[string]any{"type": "broadcast", "event": "hello", "payload": map[string]any{"n": 1}})
	if got := c.next("realtime:room:1", "broadcast", 3*time.Second); got["event"] != "hello" {
		t.Fatalf("reader got %v", got)
	}
	pub.none("realtime:room:1", "broadcast", 300*time.Millisecond)
	// And a public broadcast stays public.
	pub.send("", "realtime:room:1", "broadcast", map[string]any{"type": "broadcast", "event": "public", "payload": map[string]any{}})
	a.none("realtime:room:1", "broadcast", 300*time.Millisecond)
}

// drain returns what has arrived so far.
func drain(c *client) [][]any {
	var out [][]any
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				return out
			}
			out = append(out, m)
		case <-time.After(200 * time.Millisecond):
			return out
		}
	}
}

// Presence on a private channel: tracking needs the insert policy (an error reply
// otherwise), and presence state reaches readers.
func TestPrivatePresenceByRLS(t *testing.T) {
	srv := startPrivate(t)
	a, c := dial(t, srv, "2.0.0"), dial(t, srv, "2.0.0")
	pres := map[string]any{"presence": map[string]any{"enabled": true, "key": "k"}}
	if r := a.join("realtime:room:1", private(pres), token(t, srv, userA, time.Hour)); r["status"] != "ok" {
		t.Fatalf("join: %v", r)
	}
	a.next("realtime:room:1", "presence_state", 3*time.Second)
	if r := c.join("realtime:room:1", private(pres), token(t, srv, userC, time.Hour)); r["status"] != "ok" {
		t.Fatalf("join: %v", r)
	}
	ref := c.send("", "realtime:room:1", "presence", map[string]any{"type": "presence", "event": "track", "payload": map[string]any{"x": 1}})
	if r := replyTo(c, ref); r["status"] != "error" {
		t.Fatalf("reader's track: %v", r)
	}
	ref = a.send("", "realtime:room:1", "presence", map[string]any{"type": "presence", "event": "track", "payload": map[string]any{"x": 2}})
	if r := replyTo(a, ref); r["status"] != "ok" {
		t.Fatalf("member's track: %v", r)
	}
	diff := c.next("realtime:room:1", "presence_diff", 3*time.Second)
	if _, ok := diff["joins"].(map[string]any)["k"]; !ok {
		t.Fatalf("diff %v", diff)
	}
}

// realtime.send from SQL reaches the topic's subscribers of the same privacy only (a
// private message only the channels whose policies allowed reading), with the message id
// in meta; broadcast_changes from a trigger and send_binary too; replay hands a joining
// private channel the recent messages, marked replayed.
func TestDatabaseBroadcastAndReplay(t *testing.T) {
	srv := startPrivate(t)
	ctx := context.Background()
	a, pub := dial(t, srv, "2.0.0"), dial(t, srv, "1.0.0")
	if r := a.join("realtime:room:1", private(nil), token(t, srv, userA, time.Hour)); r["status"] != "ok" {
		t.Fatalf("join: %v", r)
	}
	if r := pub.join("realtime:room:1", map[string]any{}, ""); r["status"] != "ok" {
		t.Fatalf("join: %v", r)
	}
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := srv.Deps.Owner.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`select realtime.send('{"n": 1}', 'from-db', 'room:1', true)`)
	got := a.next("realtime:room:1", "broadcast", 3*time.Second)
	meta, _ := got["meta"].(map[string]any)
	if got["event"] != "from-db" || got["payload"].(map[string]any)["n"] != float64(1) || meta["id"] == nil || got["payload"].(map[string]any)["id"] != meta["id"] {
		t.Fatalf("private send delivered %v", got)
	}
	pub.none("realtime:room:1", "broadcast", 300*time.Millisecond)
	exec(`select realtime.send('{"n": 2}', 'public-db', 'room:1', false)`)
	if got := pub.next("realtime:room:1", "broadcast", 3*time.Second); got["event"] != "public-db" {
		t.Fatalf("public send delivered %v", got)
	}
	a.none("realtime:room:1", "broadcast", 300*time.Millisecond)
	// A rolled-back send is never delivered.
	exec(`begin; select realtime.send('{"n": 3}', 'rolled-back', 'room:1', true); rollback;`)
	a.none("realtime:room:1", "broadcast", 300*time.Millisecond)

	// broadcast_changes from a row trigger, as Supabase's guide writes it.
	exec(`create table public.rt_rooms (id int primary key, name text);
		create function public.rt_rooms_broadcast() returns trigger security definer language plpgsql as $$
		begin
		  perform realtime.broadcast_changes('room:1', tg_op, tg_op, tg_table_name, tg_table_schema, new, old);
		  return null;
		end $$;
		create trigger rt_rooms_broadcast after insert or update or delete on public.rt_rooms
		  for each row execute function public.rt_rooms_broadcast();
		insert into public.rt_rooms values (7, 'Sala 7');`)
	got = a.next("realtime:room:1", "broadcast", 3*time.Second)
	p := got["payload"].(map[string]any)
	if got["event"] != "INSERT" || p["operation"] != "INSERT" || p["table"] != "rt_rooms" || p["record"].(map[string]any)["name"] != "Sala 7" || p["old_record"] != nil {
		t.Fatalf("broadcast_changes delivered %v", got)
	}

	// send_binary arrives as the binary broadcast frame on vsn 2.0.0.
	exec(`select realtime.send_binary('\x0001ff'::bytea, 'bin', 'room:1', true)`)
	got = a.next("realtime:room:1", "broadcast", 3*time.Second)
	if got["event"] != "bin" || got["payload"].(map[string]any)["binary"] != "\x00\x01\xff" {
		t.Fatalf("send_binary delivered %v", got)
	}

	// Replay: the last message of the private topic (the binary one is the newest), then
	// live ones; a public channel may not replay; a non-member may not join to replay.
	r := dial(t, srv, "2.0.0")
	replay := map[string]any{"broadcast": map[string]any{"replay": map[string]any{"since": 0, "limit": 2}}}
	if rep := r.join("realtime:room:1", private(replay), token(t, srv, userC, time.Hour)); rep["status"] != "ok" {
		t.Fatalf("replay join: %v", rep)
	}
	first := r.next("realtime:room:1", "broadcast", 3*time.Second)
	second := r.next("realtime:room:1", "broadcast", 3*time.Second)
	if first["event"] != "INSERT" || first["meta"].(map[string]any)["replayed"] != true || second["event"] != "bin" {
		t.Fatalf("replayed %v then %v", first, second)
	}
	if rep := r.join("realtime:room:2", map[string]any{"broadcast": map[string]any{"replay": map[string]any{"since": 0}}}, ""); reason(rep) != "UnableToReplayMessages: Replay is not allowed for public channels" {
		t.Fatalf("public replay: %v", rep)
	}
	if rep := r.join("realtime:room:1", private(map[string]any{"broadcast": map[string]any{"replay": map[string]any{"since": "yesterday"}}}), token(t, srv, userC, time.Hour)); reason(rep) != "UnableToReplayMessages: Replay params are not valid" {
		t.Fatalf("bad replay params: %v", rep)
	}
}

// REST broadcast to a private topic is decided by the sender's insert policy: a member who
// may send gets 202 and the private subscribers hear it; a reader, a stranger and the anon
// key get Realtime's 403; a refused private message in a batch is skipped.
func TestRESTBroadcastPrivate(t *testing.T) {
	srv := startPrivate(t)
	a := dial(t, srv, "2.0.0")
	if r := a.join("realtime:room:1", private(nil), token(t, srv, userA, time.Hour)); r["status"] != "ok" {
		t.Fatalf("join: %v", r)
	}
	for name, bearer := range map[string]string{"reader": token(t, srv, userC, time.Hour), "stranger": token(t, srv, userB, time.Hour), "anon": ""} {
		if st, body := post(t, srv, single("room:1", "x")+"?private=true", "application/json", `{"n":0}`, bearer); st != http.StatusForbidden || body["message"] != "Unauthorized" {
			t.Fatalf("%s: %d %v", name, st, body)
		}
	}
	st, _ := post(t, srv, "/realtime/v1/api/broadcast", "application/json",
		`{"messages":[{"topic":"room:1","event":"skipped","payload":{},"private":true}]}`, token(t, srv, userC, time.Hour))
	if st != http.StatusAccepted {
		t.Fatalf("batch: %d", st)
	}
	a.none("realtime:room:1", "broadcast", 300*time.Millisecond)
	if st, _ := post(t, srv, single("room:1", "rest")+"?private=true", "application/json", `{"n":1}`, token(t, srv, userA, time.Hour)); st != http.StatusAccepted {
		t.Fatalf("member: %d", st)
	}
	if got := a.next("realtime:room:1", "broadcast", 3*time.Second); got["event"] != "rest" {
		t.Fatalf("got %v", got)
	}
	if st, _ := post(t, srv, single("room:1", "bytes")+"?private=true", "application/octet-stream", "\x01\x02", token(t, srv, userA, time.Hour)); st != http.StatusAccepted {
		t.Fatalf("binary: %d", st)
	}
	if got := a.next("realtime:room:1", "broadcast", 3*time.Second); got["event"] != "bytes" || got["payload"].(map[string]any)["binary"] != "\x01\x02" {
		t.Fatalf("got %v", got)
	}
}

// A token refresh that loses the read policy closes the channel with Supabase's message.
func TestPrivateReadRevokedOnRefresh(t *testing.T) {
	srv := startPrivate(t)
	a := dial(t, srv, "2.0.0")
	if r := a.join("realtime:room:1", private(nil), token(t, srv, userA, time.Hour)); r["status"] != "ok" {
		t.Fatalf("join: %v", r)
	}
	a.send("", "realtime:room:1", "access_token", map[string]any{"access_token": token(t, srv, userB, time.Hour)})
	got := a.next("realtime:room:1", "system", 3*time.Second)
	if got["message"] != "You no longer have permission to read from this Channel topic: room:1" || got["status"] != "error" {
		t.Fatalf("system %v", got)
	}
	a.next("realtime:room:1", "phx_close", 3*time.Second)
}

// A table created and added to the supabase_realtime publication while the server runs is
// streamed without a restart (the publication's event trigger puts the capture trigger on
// it and tells the servers to reload their table list).
func TestNewTableStreamedAfterDDL(t *testing.T) {
	srv := testserver.Start(t, nil)
	ctx := context.Background()
	var super bool
	if err := srv.Deps.Owner.QueryRow(ctx, "select rolsuper from pg_roles where rolname = current_user").Scan(&super); err != nil || !super {
		t.Skip("the publication event trigger needs a superuser owner")
	}
	a := dial(t, srv, "2.0.0")
	sub := map[string]any{"postgres_changes": []any{map[string]any{"event": "INSERT", "schema": "public", "table": "rt_late"}}}
	if r := a.join("realtime:late", sub, ""); r["status"] != "error" {
		t.Fatalf("a table that does not exist yet: %v", r)
	}
	// No realtime.sync_triggers() call: the DDL alone must do it.
	if _, err := srv.Deps.Owner.Exec(ctx, `create table public.rt_late (id int primary key, note text);
		grant select on public.rt_late to anon;
		alter publication supabase_realtime add table public.rt_late;`); err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); ; {
		if r := a.join("realtime:late", sub, ""); r["status"] == "ok" {
			if got := a.next("realtime:late", "system", 3*time.Second); got["status"] == "ok" {
				break
			}
		}
		if time.Since(start) > 10*time.Second {
			t.Fatal("rt_late never became subscribable")
		}
		time.Sleep(20 * time.Millisecond) // polling the condition, not a fixed wait
	}
	if _, err := srv.Deps.Owner.Exec(ctx, "insert into public.rt_late values (1, 'nou')"); err != nil {
		t.Fatal(err)
	}
	got := a.next("realtime:late", "postgres_changes", 5*time.Second)
	if rec := got["data"].(map[string]any)["record"].(map[string]any); rec["note"] != "nou" {
		t.Fatalf("change %v", got)
	}
}

// The API roles reach realtime.messages and realtime.topic(), but not the schema's internal
// functions, and the probe insert refuses a caller that is not the server's check.
func TestRealtimeSchemaPrivileges(t *testing.T) {
	srv := testserver.Start(t, nil)
	ctx := context.Background()
	c := &authn.Claims{Role: authn.RoleAuthenticated}
	c.Subject = userA
	try := func(sql string) error {
		return db.AsRole(ctx, srv.Deps.API, c, db.ReadWrite, db.RequestInfo{Method: "POST", Path: "/rest/v1/rpc/x"}, func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, sql)
			return err
		})
	}
	for _, sql := range []string{
		"select realtime.casus_authorization_probe(array[gen_random_uuid()], 'room:1', array['broadcast'])",
		"select realtime.sync_triggers()",
		"select count(*) from realtime.bus_messages",
	} {
		var pe *pgconn.PgError
		if err := try(sql); !errors.As(err, &pe) || pe.Code != "42501" {
			t.Errorf("%s: %v, want 42501", sql, err)
		}
	}
	if err := try("select realtime.topic(), count(*) from realtime.messages"); err != nil {
		t.Errorf("topic() and messages: %v", err)
	}
}

// A client's binary broadcast (vsn 2.0.0 push with binary encoding) is relayed as binary:
// the other vsn 2.0.0 subscribers get the bytes in a binary frame, 1.0.0 ones nothing, and
// the sender only with self.
func TestClientBinaryBroadcastRelayed(t *testing.T) {
	srv := startServer(t)
	a, b, old := dial(t, srv, "2.0.0"), dial(t, srv, "2.0.0"), dial(t, srv, "1.0.0")
	for _, c := range []*client{a, b, old} {
		if r := c.join("realtime:bin", map[string]any{}, ""); r["status"] != "ok" {
			t.Fatalf("join: %v", r)
		}
	}
	topic, event, data := "realtime:bin", "raw", "\x00\xffbytes"
	frame := []byte{3, 0, 0, byte(len(topic)), byte(len(event)), 0, 0}
	frame = append(frame, topic...)
	frame = append(frame, event...)
	frame = append(frame, data...)
	if err := a.ws.WriteMessage(websocket.BinaryMessage, frame); err != nil {
		t.Fatal(err)
	}
	got := b.next(topic, "broadcast", 3*time.Second)
	if got["event"] != event || got["payload"].(map[string]any)["binary"] != data {
		t.Fatalf("relayed %v", got)
	}
	// The first broadcast the 1.0.0 socket and the sender (no self) get is a later JSON one.
	b.send("", topic, "broadcast", map[string]any{"type": "broadcast", "event": "json", "payload": map[string]any{}})
	for name, c := range map[string]*client{"1.0.0 socket": old, "sender": a} {
		if got := c.next(topic, "broadcast", 3*time.Second); got["event"] != "json" {
			t.Fatalf("%s got %v first", name, got)
		}
	}
}
