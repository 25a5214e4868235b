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
