package postgrest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// A request's role, claims, read-only mode and timeout live only as long as its implicit
// transaction: every connection the data API hands back to the pool is the plain
// authenticator again, after successes, failures and tx=rollback alike.
func TestRequestsLeaveNoSettingsOnTheirConnection(t *testing.T) {
	e := setup(t)
	a := e.token("authenticated", userA)
	e.ddl(`create table public.t_log (n int);
		grant select, insert on public.t_log to authenticated;
		create function public.t_write() returns int language sql volatile as $$ insert into public.t_log values (1) returning 1 $$;
		create view public.t_writer with (security_invoker = true) as select public.t_write() as n;
		grant select on public.t_writer to authenticated;
		grant execute on function public.t_write() to authenticated`, "t_log?select=n", a)

	// GET runs read-only: a view whose column writes fails with PostgREST's 405 for 25006.
	e.expectErr(e.raw("GET", "t_writer?select=n", a, ""), 405, "25006")
	// POST runs read-write, and its work is committed.
	if r := e.do("POST", "t_log", a, map[string]any{"n": 2}); r.status != 201 {
		t.Fatalf("insert: %d %s", r.status, r.raw)
	}
	// tx=rollback undoes it.
	if r := e.do("POST", "t_log", a, map[string]any{"n": 3}, "Prefer", "tx=rollback"); r.status != 201 {
		t.Fatalf("insert with tx=rollback: %d %s", r.status, r.raw)
	}
	// A failing statement leaves nothing behind either.
	e.expectErr(e.raw("POST", "t_log", a, `{"n":"x"}`), 400, "22P02")
	r := e.do("GET", "t_log?select=n&order=n", a, nil)
	if strings.ReplaceAll(r.raw, " ", "") != `[{"n":2}]` {
		t.Fatalf("committed rows: %s", r.raw)
	}

	// Every pooled connection: the login role, no claims, read-write, and the configured
	// statement timeout (the connection's own setting, testserver's 8 s).
	ctx := context.Background()
	api := e.srv.Deps.API
	var held []*pgxpool.Conn
	defer func() {
		for _, c := range held {
			c.Release()
		}
	}()
	for i := int32(0); i < api.Stat().TotalConns(); i++ {
		c, err := api.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
		var user, claims, sub, readOnly, timeout string
		if err := c.QueryRow(ctx, `select current_user, coalesce(current_setting('request.jwt.claims', true), ''),
			coalesce(current_setting('request.jwt.claim.sub', true), ''), current_setting('transaction_read_only'),
			current_setting('statement_timeout')`).Scan(&user, &claims, &sub, &readOnly, &timeout); err != nil {
			t.Fatal(err)
		}
		if user != api.Config().ConnConfig.User || claims != "" || sub != "" || readOnly != "off" || timeout != "8s" {
			t.Errorf("connection %d after requests: user=%s claims=%q sub=%q read_only=%s statement_timeout=%s", i, user, claims, sub, readOnly, timeout)
		}
	}
	if len(held) == 0 {
		t.Fatal("the API pool has no connections to check")
	}
}
