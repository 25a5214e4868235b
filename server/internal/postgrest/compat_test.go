package postgrest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/config"
	"casus/server/internal/testutil/pgtest"
	"casus/server/internal/testutil/testserver"
)

// compatFixture is the core suite's fixture (issue 17): one-to-one, self-referencing,
// many-to-many and view relationships, overloaded and row-type functions, a computed field,
// identity and default columns, and a second schema. The Go tests load the very same file.
func compatFixture(t *testing.T) string {
	_, here, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(here), "../../../frontend/tests/compat/core/fixture/100_postgrest.sql"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// setupCompat starts the core alone (CASUS_APP=none) on a database holding the fixture,
// exposing public and the fixture's second schema.
func setupCompat(t *testing.T) *env {
	url := pgtest.NewPlatform(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, compatFixture(t)); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	_ = conn.Close(ctx)
	srv := testserver.Start(t, func(c *config.Config) {
		c.App = "none"
		c.DatabaseURL = url
		c.DBSchemas = []string{"public", "lib_extra"}
	})
	return &env{t: t, srv: srv}
}

// The fixture's shapes are served: each relationship kind, the view, the second schema.
func TestCompatFixture(t *testing.T) {
	e := setupCompat(t)
	for _, tc := range []struct{ path, want string }{
		{"lib_authors?select=name,mentor:lib_authors!mentor_id(name)&id=eq.2", `[{"name":"Bogdan","mentor":{"name":"Ana"}}]`},
		{"lib_books?select=title,lib_authors(name)&id=eq.1&lib_authors.order=name", `[{"title":"Drept civil","lib_authors":[{"name":"Ana"},{"name":"Bogdan"}]}]`},
		{"lib_books_view?select=title&id=eq.2", `[{"title":"Drept penal"}]`},
	} {
		r := e.do("GET", tc.path, "", nil)
		if r.status != 200 || compactJSON(t, r.raw) != tc.want {
			t.Errorf("%s: %d %s, want %s", tc.path, r.status, r.raw, tc.want)
		}
	}
	r := e.do("GET", "items?select=label", "", nil, "Accept-Profile", "lib_extra")
	if r.status != 200 || compactJSON(t, r.raw) != `[{"label":"din schema a doua"}]` {
		t.Errorf("second schema: %d %s", r.status, r.raw)
	}
}

// compactJSON is raw without insignificant whitespace (PostgreSQL's json_agg spaces it).
func compactJSON(t *testing.T, raw string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(raw)); err != nil {
		t.Fatalf("not JSON: %s", raw)
	}
	return b.String()
}

// Reads as PostgREST answers them (issue 17 §2), one row per behaviour.
func TestCompatReads(t *testing.T) {
	e := setupCompat(t)
	for _, tc := range []struct{ name, path, want string }{
		// Range operators: nxr is &< (does not extend to the right), nxl is &>.
		{"nxr", "lib_books?select=id&span=nxr.[1,10)&order=id", `[{"id":1}]`},
		{"nxl", "lib_books?select=id&span=nxl.[5,20)&order=id", `[{"id":2},{"id":3}]`},
		{"not nxr", "lib_books?select=id&span=not.nxr.[5,20)&order=id", `[{"id":3}]`},
		// (any) and (all) modifiers.
		{"like(any)", "lib_books?select=id&title=like(any).{*civil,Contr*}&order=id", `[{"id":1},{"id":3}]`},
		{"like(all)", "lib_books?select=id&title=like(all).{Drept*,*penal}&order=id", `[{"id":2}]`},
		{"ilike(any)", "lib_books?select=id&title=ilike(any).{*CIVIL,obli*}&order=id", `[{"id":1},{"id":4}]`},
		{"ilike(all)", "lib_books?select=id&title=ilike(all).{drept*,*CIVIL}&order=id", `[{"id":1}]`},
		{"eq(any)", "lib_books?select=id&year=eq(any).{2020,2022}&order=id", `[{"id":1},{"id":3}]`},
		{"gt(all)", "lib_books?select=id&year=gt(all).{2019,2020}&order=id", `[{"id":2},{"id":3}]`},
		{"lt(any)", "lib_books?select=id&year=lt(any).{2021,2000}&order=id", `[{"id":1}]`},
		{"match(any)", "lib_books?select=id&title=match(any).{^Dr.*l$,^O}&order=id", `[{"id":1},{"id":2},{"id":4}]`},
		{"imatch(all)", "lib_books?select=id&title=imatch(all).{^drept,penal$}&order=id", `[{"id":2}]`},
		{"not like(any)", "lib_books?select=id&title=not.like(any).{Drept*,Oblig*}&order=id", `[{"id":3}]`},
		// One-to-one (the profile's key is its FK) embeds as an object, both ways.
		{"one-to-one object", "lib_authors?select=name,lib_profiles(bio)&id=in.(1,3)&order=id", `[{"name":"Ana","lib_profiles":{"bio":"Profesoară"}},{"name":"Cristina","lib_profiles":null}]`},
		{"one-to-one back", "lib_profiles?select=bio,lib_authors(name)&author_id=eq.2", `[{"bio":"Student","lib_authors":{"name":"Bogdan"}}]`},
		{"one-to-one spread", "lib_authors?select=name,...lib_profiles(bio)&id=eq.1", `[{"name":"Ana","bio":"Profesoară"}]`},
		// An empty embed filters without adding a key.
		{"empty embed inner", "lib_authors?select=name,lib_profiles!inner()&order=id", `[{"name":"Ana"},{"name":"Bogdan"}]`},
		{"empty embed is.null", "lib_authors?select=name,lib_profiles()&lib_profiles=is.null&order=id", `[{"name":"Cristina"},{"name":"Dan"}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do("GET", tc.path, "", nil)
			if r.status != 200 || compactJSON(t, r.raw) != tc.want {
				t.Fatalf("%s: %d %s, want %s", tc.path, r.status, r.raw, tc.want)
			}
		})
	}
	// A modifier on an operator that takes none, or an unknown modifier, is a parse error.
	for _, p := range []string{"lib_books?title=like(some).{a}", "lib_books?year=is(any).{null}", "lib_books?title=like(any).abc"} {
		e.expectErr(e.do("GET", p, "", nil), 400, "PGRST100")
	}
}
