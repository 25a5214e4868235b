package postgrest

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"casus/server/internal/db"
	"casus/server/internal/testutil/pgtest"
)

// records keeps the relation attribute of each warning logged.
type records struct {
	mu        sync.Mutex
	relations []string
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	if rec.Level != slog.LevelWarn {
		return nil
	}
	rec.Attrs(func(a slog.Attr) bool {
		if a.Key == "relation" {
			r.mu.Lock()
			r.relations = append(r.relations, a.Value.String())
			r.mu.Unlock()
		}
		return true
	})
	return nil
}
func (r *records) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *records) WithGroup(string) slog.Handler      { return r }

func TestAdvisorNamesExposedRelationsWithoutRLS(t *testing.T) {
	url := pgtest.NewPlatform(t)
	ctx := context.Background()
	pools, err := db.OpenPools(ctx, url, []byte("0123456789abcdef0123456789abcdef"), db.PoolOptions{OwnerConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer pools.Close()
	for _, q := range []string{
		"create table public.open_notes (id int)",                                                                 // the trap: granted, RLS off
		"create table public.guarded (id int); alter table public.guarded enable row level security",              // fine
		"create table public.private_notes (id int); revoke all on public.private_notes from anon, authenticated", // not exposed
		"create view public.owner_view as select * from public.guarded",                                           // bypasses guarded's RLS
		"create view public.invoker_view with (security_invoker = true) as select * from public.guarded",
	} {
		if _, err := pools.Owner.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rec := &records{}
	warnUnprotected(ctx, pools.Owner, []string{"public"}, slog.New(rec))
	slices.Sort(rec.relations)
	if got := strings.Join(rec.relations, ","); got != "public.open_notes,public.owner_view" {
		t.Fatalf("warned about %q, want public.open_notes and public.owner_view", got)
	}
}

func TestCheckSchemasRefusesUnusableSchemas(t *testing.T) {
	url := pgtest.NewPlatform(t)
	ctx := context.Background()
	pools, err := db.OpenPools(ctx, url, []byte("0123456789abcdef0123456789abcdef"), db.PoolOptions{OwnerConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer pools.Close()
	if err := checkSchemas(ctx, pools.API, []string{"public"}); err != nil {
		t.Fatalf("public: %v", err)
	}
	if err := checkSchemas(ctx, pools.API, []string{"public", "nowhere"}); err == nil || !strings.Contains(err.Error(), `schema "nowhere" does not exist`) {
		t.Fatalf("missing schema: %v", err)
	}
	if _, err := pools.Owner.Exec(ctx, "create schema api"); err != nil {
		t.Fatal(err)
	}
	if err := checkSchemas(ctx, pools.API, []string{"api"}); err == nil || !strings.Contains(err.Error(), "no API role can use schema \"api\"") {
		t.Fatalf("schema without usage: %v", err)
	}
	// A stock Supabase project grants a second schema to the API roles only, never to
	// the login role: that is enough (PostgREST starts on it too).
	if _, err := pools.Owner.Exec(ctx, "grant usage on schema api to anon, authenticated"); err != nil {
		t.Fatal(err)
	}
	if err := checkSchemas(ctx, pools.API, []string{"public", "api"}); err != nil {
		t.Fatalf("schema granted to anon and authenticated only: %v", err)
	}
}
