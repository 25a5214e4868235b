package postgrest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

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
	// USAGE still decides: a role without it is refused as PostgreSQL refuses it.
	stockSQL(t, url, "revoke usage on schema personal from anon")
	code, body = call(t, srv, "GET", "/rest/v1/users?select=username", "", profile...)
	var e struct{ Code string }
	if code != 401 || json.Unmarshal([]byte(body), &e) != nil || e.Code != "42501" {
		t.Fatalf("anon without usage: %d %s", code, body)
	}
}
