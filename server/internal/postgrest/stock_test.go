package postgrest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/config"
	"casus/server/internal/testutil/pgtest"
	"casus/server/internal/testutil/testserver"
)

// stockSQL runs SQL on a test database as its owner, as a project's psql would.
func stockSQL(t *testing.T, url string, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range stmts {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// call sends a request to the data API with the anon key (and body, and extra headers).
func call(t *testing.T, srv *testserver.Server, method, path, body string, hdr ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	req.Header.Set("apikey", srv.Deps.Keys.AnonKey)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var c bytes.Buffer
	if json.Compact(&c, b) == nil {
		return res.StatusCode, c.String()
	}
	return res.StatusCode, string(b)
}

// A Supabase project exposing a second schema grants it to anon and authenticated only
// (the login role gets nothing). PostgREST starts and serves it; so must Casus, through
// both its one-round-trip path (statements prepared before the role switch) and its
// transaction path, for short statements and long ones.
func TestStockSecondSchemaGrantedToTheAPIRolesOnly(t *testing.T) {
	url := pgtest.NewPlatform(t)
	stockSQL(t, url,
		"create schema personal",
		"grant usage on schema personal to anon, authenticated, service_role",
		"create table personal.users (username text primary key, status text not null default 'ONLINE')",
		"alter table personal.users enable row level security",
		"create policy users_read on personal.users for select to anon using (true)",
		"grant select on personal.users to anon, authenticated",
		"insert into personal.users (username) values ('supabot'), ('kiwicopple')",
		"create function personal.get_status(name_param text) returns text language sql stable as $$ select status from personal.users where username = name_param $$",
		// Unqualified, as in the postgrest-js suite's schema: PostgREST's search_path (the
		// request's schema first) finds personal.users.
		"set check_function_bodies = off",
		"create function personal.status_of(name_param text) returns text language sql stable as $$ select status from users where username = name_param $$",
	)
	srv := testserver.Start(t, func(c *config.Config) {
		c.App, c.DatabaseURL, c.DBSchemas = "none", url, []string{"public", "personal"}
	})
	profile := []string{"Accept-Profile", "personal"}
	// The same read twice: the second finds the statement known to the connection.
	for i := 0; i < 2; i++ {
		code, body := call(t, srv, "GET", "/rest/v1/users?select=username&order=username", "", profile...)
		if code != 200 || body != `[{"username":"kiwicopple"},{"username":"supabot"}]` {
			t.Fatalf("read %d of personal.users: %d %s", i, code, body)
		}
	}
	// A long statement (never prepared) and a count (the transaction path).
	long := "/rest/v1/users?select=username&username=in.(" + strings.Repeat("x,", 400) + "supabot)"
	if code, body := call(t, srv, "GET", long, "", profile...); code != 200 || body != `[{"username":"supabot"}]` {
		t.Fatalf("long read: %d %s", code, body)
	}
	if code, body := call(t, srv, "GET", "/rest/v1/users?select=username&limit=1", "", append(profile, "Prefer", "count=exact")...); code != 206 || !strings.Contains(body, "username") {
		t.Fatalf("counted read: %d %s", code, body)
	}
	code, body := call(t, srv, "POST", "/rest/v1/rpc/get_status", `{"name_param":"supabot"}`, "Content-Profile", "personal")
	if code != 200 || body != `"ONLINE"` {
		t.Fatalf("rpc in personal: %d %s", code, body)
	}
	code, body = call(t, srv, "POST", "/rest/v1/rpc/status_of", `{"name_param":"kiwicopple"}`, "Content-Profile", "personal")
	if code != 200 || body != `"ONLINE"` {
		t.Fatalf("rpc resolving an unqualified name through the search_path: %d %s", code, body)
	}
	// USAGE still decides: a role without it is refused as PostgreSQL refuses it.
	stockSQL(t, url, "revoke usage on schema personal from anon")
	code, body = call(t, srv, "GET", "/rest/v1/users?select=username", "", profile...)
	var e struct{ Code string }
	if code != 401 || json.Unmarshal([]byte(body), &e) != nil || e.Code != "42501" {
		t.Fatalf("anon without usage: %d %s", code, body)
	}
}

// waitFor polls the data API until ok accepts an answer (the server applies a NOTIFY
// asynchronously), failing after 30 s.
func waitFor(t *testing.T, what string, ok func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		done, last := ok()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: never; last answer %s", what, last)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// PostgREST's in-database configuration: pgrst.* settings on the login role, the
// database-specific ones winning, applied at start and on NOTIFY pgrst 'reload config',
// over the environment.
func TestInDatabaseConfigOnTheLoginRole(t *testing.T) {
	url := pgtest.NewPlatform(t)
	env := func(c *config.Config) {
		c.App, c.DatabaseURL = "none", url
		c.DBAggregatesEnabled, c.DBPlanEnabled, c.DBTxEnd, c.DBMaxRows = false, false, "commit", 1000
	}
	logs := &lockedLog{}
	srv := testserver.StartLogging(t, env, logs)
	role := srv.Deps.API.Config().ConnConfig.User
	stockSQL(t, url,
		"create table public.items (id int primary key, n int not null)",
		"alter table public.items enable row level security",
		"create policy items_all on public.items for all to anon using (true) with check (true)",
		"grant select, insert on public.items to anon",
		"insert into public.items values (1, 10), (2, 20), (3, 30)",
		`create function public.check_request() returns void language plpgsql as $$
		 begin
		   if current_setting('request.headers', true)::json->>'x-block' = 'yes' then
		     raise insufficient_privilege using message = 'blocked by the pre-request';
		   end if;
		 end $$`,
	)
	waitFor(t, "items served", func() (bool, string) {
		code, body := call(t, srv, "GET", "/rest/v1/items?select=id", "")
		return code == 200, body
	})
	// The environment alone: no aggregates, no plans, Prefer: tx ignored (db-tx-end commit).
	if code, body := call(t, srv, "GET", "/rest/v1/items?select=n.sum()", ""); code != 400 || !strings.Contains(body, "PGRST123") {
		t.Fatalf("aggregates off: %d %s", code, body)
	}
	req, _ := http.NewRequest("POST", srv.URL+"/rest/v1/items", strings.NewReader(`{"id":4,"n":40}`))
	req.Header.Set("apikey", srv.Deps.Keys.AnonKey)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Prefer", "tx=rollback")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 201 || res.Header.Get("Preference-Applied") != "" {
		t.Fatalf("tx=rollback under db-tx-end commit: %d, Preference-Applied %q", res.StatusCode, res.Header.Get("Preference-Applied"))
	}
	if code, body := call(t, srv, "GET", "/rest/v1/items?id=eq.4&select=id", ""); code != 200 || body != `[{"id":4}]` {
		t.Fatalf("the write with tx=rollback was not committed under db-tx-end commit: %d %s", code, body)
	}

	// A Supabase project's statements, as psql runs them.
	var dbName string
	if err := srv.Deps.Owner.QueryRow(context.Background(), "select current_database()").Scan(&dbName); err != nil {
		t.Fatal(err)
	}
	r, d := pgx.Identifier{role}.Sanitize(), pgx.Identifier{dbName}.Sanitize()
	stockSQL(t, url,
		"create schema extra2",
		"grant usage on schema extra2 to anon",
		"create table extra2.things (id int primary key)",
		"alter table extra2.things enable row level security",
		"create policy things_read on extra2.things for select to anon using (true)",
		"grant select on extra2.things to anon",
		"insert into extra2.things values (7)",
		"alter role "+r+" set pgrst.db_schemas = 'public, extra2'",
		"alter role "+r+" set pgrst.db_aggregates_enabled = 'true'",
		"alter role "+r+" set pgrst.db_plan_enabled to 'true'",
		"alter role "+r+" set pgrst.db_tx_end to 'commit-allow-override'",
		"alter role "+r+" set pgrst.db_max_rows = '1'",
		"alter role "+r+" in database "+d+" set pgrst.db_max_rows = '2'", // this database's wins
		"alter role "+r+" set pgrst.db_pre_request = 'public.check_request'",
		"notify pgrst, 'reload config'",
	)
	waitFor(t, "aggregates on after reload config", func() (bool, string) {
		code, body := call(t, srv, "GET", "/rest/v1/items?select=n.sum()", "")
		return code == 200 && body == `[{"sum":100}]`, body
	})
	if code, body := call(t, srv, "GET", "/rest/v1/items?select=id&order=id", ""); code != 200 || body != `[{"id":1},{"id":2}]` {
		t.Fatalf("db_max_rows 2 (database-specific): %d %s", code, body)
	}
	if code, body := call(t, srv, "GET", "/rest/v1/things?select=id", "", "Accept-Profile", "extra2"); code != 200 || body != `[{"id":7}]` {
		t.Fatalf("db_schemas: a schema added in the database: %d %s", code, body)
	}
	if code, body := call(t, srv, "GET", "/rest/v1/items?select=id", "", "Accept", "application/vnd.pgrst.plan+json"); code != 200 || !strings.Contains(body, `"Plan"`) {
		t.Fatalf("db_plan_enabled: %d %s", code, body)
	}
	if code, body := call(t, srv, "POST", "/rest/v1/items", `{"id":5,"n":50}`, "Prefer", "tx=rollback"); code != 201 {
		t.Fatalf("insert with tx=rollback: %d %s", code, body)
	}
	if code, body := call(t, srv, "GET", "/rest/v1/items?id=eq.5&select=id", ""); code != 200 || body != `[]` {
		t.Fatalf("tx=rollback not honoured under commit-allow-override: %d %s", code, body)
	}
	if code, body := call(t, srv, "GET", "/rest/v1/items?select=id", "", "X-Block", "yes"); code != 401 || !strings.Contains(body, "blocked by the pre-request") {
		t.Fatalf("db_pre_request: %d %s", code, body)
	}
	if code, body := call(t, srv, "POST", "/rest/v1/items", `{"id":6,"n":60}`, "X-Block", "yes"); code != 401 {
		t.Fatalf("db_pre_request on a write: %d %s", code, body)
	}

	// A server starting on the database applies them at once; DB_CONFIG=false ignores them.
	srv2 := testserver.Start(t, env)
	if code, body := call(t, srv2, "GET", "/rest/v1/items?select=n.sum()", ""); code != 200 || body != `[{"sum":100}]` {
		t.Fatalf("in-database aggregates at start: %d %s", code, body)
	}
	srv3 := testserver.Start(t, func(c *config.Config) { env(c); c.DBConfig = false })
	if code, body := call(t, srv3, "GET", "/rest/v1/items?select=n.sum()", ""); code != 400 || !strings.Contains(body, "PGRST123") {
		t.Fatalf("DB_CONFIG=false: %d %s", code, body)
	}

	// An invalid value is refused at reload (and logged): the settings in force stay.
	stockSQL(t, url, "alter role "+r+" set pgrst.db_tx_end = 'sometimes'", "alter role "+r+" in database "+d+" set pgrst.db_max_rows = '3'", "notify pgrst, 'reload config'")
	waitFor(t, "the invalid config logged", func() (bool, string) {
		return strings.Contains(logs.String(), `db-tx-end \"sometimes\"`), logs.String()
	})
	if code, body := call(t, srv, "GET", "/rest/v1/items?select=id&order=id", ""); code != 200 || body != `[{"id":1},{"id":2}]` {
		t.Fatalf("invalid in-database config replaced the settings: %d %s", code, body)
	}
}

// lockedLog is a server log a test reads while the server writes it.
type lockedLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	os.Stderr.Write(p)
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// DB_AUTHENTICATOR=authenticator: the login role every Supabase project names, so its
// `alter role authenticator … set pgrst.…` applies unchanged (here in this database only:
// the role is cluster-wide and other test databases share it).
func TestLoginRoleNamedAuthenticator(t *testing.T) {
	url := pgtest.NewPlatform(t)
	stockSQL(t, url,
		"create schema personal",
		"grant usage on schema personal to anon, authenticated",
		"create table personal.notes (id int primary key, n int not null)",
		"alter table personal.notes enable row level security",
		"create policy notes_read on personal.notes for select to anon using (true)",
		"grant select on personal.notes to anon",
		"insert into personal.notes values (1, 2), (2, 3)",
		`do $$ begin execute format('alter role authenticator in database %I set pgrst.db_aggregates_enabled = %L', current_database(), 'true'); end $$`,
	)
	srv := testserver.Start(t, func(c *config.Config) {
		c.App, c.DatabaseURL, c.DBAuthenticator, c.DBSchemas = "none", url, "authenticator", []string{"public", "personal"}
		c.DBAggregatesEnabled = false
	})
	if u := srv.Deps.API.Config().ConnConfig.User; u != "authenticator" {
		t.Fatalf("the API logs in as %s", u)
	}
	if code, body := call(t, srv, "GET", "/rest/v1/notes?select=n.sum()", "", "Accept-Profile", "personal"); code != 200 || body != `[{"sum":5}]` {
		t.Fatalf("aggregate on personal.notes as authenticator: %d %s", code, body)
	}
}
