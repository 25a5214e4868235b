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
		{"lib_authors?select=name,mentor:mentor_id(name)&id=eq.2", `[{"name":"Bogdan","mentor":{"name":"Ana"}}]`},
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
		// A filter on an empty embed that nothing tests changes nothing (its argument is
		// not left unreferenced in the statement: found by FuzzStatement).
		{"empty embed filter unused", "lib_authors?select=name,lib_profiles()&lib_profiles.bio=eq.Student&order=id", `[{"name":"Ana"},{"name":"Bogdan"},{"name":"Cristina"},{"name":"Dan"}]`},
		{"empty embed filter inner", "lib_authors?select=name,lib_profiles!inner()&lib_profiles.bio=eq.Student&order=id", `[{"name":"Bogdan"}]`},
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

// Output formats: nulls=stripped and CSV as PostgREST writes them.
func TestCompatOutput(t *testing.T) {
	e := setupCompat(t)
	for _, tc := range []struct{ name, path, accept, wantType, want string }{
		{"array stripped", "lib_books?select=id,year,note&id=in.(2,4)&order=id", "application/vnd.pgrst.array+json;nulls=stripped",
			"application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8", `[{"id":2,"year":2021},{"id":4,"note":" spaced "}]`},
		{"object stripped", "lib_books?select=id,year,note&id=eq.4", "application/vnd.pgrst.object+json;nulls=stripped",
			"application/vnd.pgrst.object+json;nulls=stripped; charset=utf-8", `{"id":4,"note":" spaced "}`},
		{"nested stripped", "lib_authors?select=name,lib_profiles(bio,author_id)&id=eq.3", "application/vnd.pgrst.array+json;nulls=stripped",
			"application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8", `[{"name":"Cristina"}]`},
		{"not stripped", "lib_books?select=id,year&id=eq.4", "application/json", "application/json; charset=utf-8", `[{"id":4,"year":null}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do("GET", tc.path, "", nil, "Accept", tc.accept)
			if r.status != 200 || compactJSON(t, r.raw) != tc.want || r.header.Get("Content-Type") != tc.wantType {
				t.Fatalf("%d %q %s, want %q %s", r.status, r.header.Get("Content-Type"), r.raw, tc.wantType, tc.want)
			}
		})
	}
	for _, tc := range []struct{ name, path, want string }{
		{"quoting", "lib_books?select=id,title,note,span&order=id",
			"id,title,note,span\n1,\"Drept civil\",\"a, \"\"b\"\"\",\"[1,10)\"\n2,\"Drept penal\",,\"[5,20)\"\n3,Contracte,\"line one\nline two\",\"[20,30)\"\n4,Obligații,\" spaced \","},
		{"no rows", "lib_books?select=id&id=eq.999", "\n"},
	} {
		t.Run("csv "+tc.name, func(t *testing.T) {
			r := e.do("GET", tc.path, "", nil, "Accept", "text/csv")
			if r.status != 200 || r.raw != tc.want || r.header.Get("Content-Type") != "text/csv; charset=utf-8" {
				t.Fatalf("%d %q\n%q\nwant\n%q", r.status, r.header.Get("Content-Type"), r.raw, tc.want)
			}
		})
	}
}

// Counts and statuses of reads and writes.
func TestCompatCountsAndStatuses(t *testing.T) {
	e := setupCompat(t)
	svc := e.token("service_role", "")
	if _, err := e.srv.Deps.Owner.Exec(context.Background(), "analyze public.lib_books"); err != nil {
		t.Fatal(err)
	}
	type step struct {
		name, method, path, bearer string
		body                       any
		prefer                     string
		status                     int
		rangeH                     string
		want                       string // compact JSON body, "" to skip
	}
	for _, s := range []step{
		// Reads: a counted total larger than the rows answered is 206 Partial Content.
		{"exact partial", "GET", "lib_books?select=id&order=id&limit=1", "", nil, "count=exact", 206, "0-0/4", `[{"id":1}]`},
		{"exact whole", "GET", "lib_books?select=id&order=id", "", nil, "count=exact", 200, "0-3/4", ""},
		{"planned partial (RLS: counted)", "GET", "lib_books?select=id&order=id&limit=2", "", nil, "count=planned", 206, "0-1/4", ""},
		{"planned partial (estimate)", "GET", "lib_books?select=id&order=id&limit=2", svc, nil, "count=planned", 206, "0-1/4", ""},
		{"no count", "GET", "lib_books?select=id&order=id&limit=1", "", nil, "", 200, "0-0/*", ""},
		// Writes with return=representation and count=exact send the total.
		{"insert counted", "POST", "lib_counters?select=id,label", "", []map[string]any{{"id": 10, "label": "a"}, {"id": 11, "label": "b"}},
			"return=representation,count=exact", 201, "*/2", `[{"id":10,"label":"a"},{"id":11,"label":"b"}]`},
		{"insert minimal counted", "POST", "lib_counters", "", map[string]any{"id": 13, "label": "c"}, "count=exact", 201, "*/1", ""},
		{"insert not counted", "POST", "lib_counters", "", map[string]any{"id": 14, "label": "d"}, "", 201, "*/*", ""},
		{"update counted", "PATCH", "lib_counters?id=in.(10,11)&select=id,hits", "", map[string]any{"hits": 3},
			"return=representation,count=exact", 200, "0-1/2", `[{"id":10,"hits":3},{"id":11,"hits":3}]`},
		{"delete minimal counted", "DELETE", "lib_counters?id=in.(13,14)", "", nil, "count=exact", 204, "0-1/2", ""},
		// An upsert that only updates answers 200; one that inserts answers 201.
		{"upsert update only", "POST", "lib_counters", "", map[string]any{"id": 1, "label": "unu", "hits": 9}, "resolution=merge-duplicates", 200, "*/*", ""},
		{"upsert update only repr", "POST", "lib_counters?select=id,hits", "", []map[string]any{{"id": 1, "label": "unu", "hits": 10}},
			"resolution=merge-duplicates,return=representation", 200, "*/*", `[{"id":1,"hits":10}]`},
		{"upsert inserting", "POST", "lib_counters?select=id,hits", "", []map[string]any{{"id": 1, "label": "unu", "hits": 11}, {"id": 12, "label": "nou"}},
			"resolution=merge-duplicates,return=representation,missing=default", 201, "*/*", `[{"id":1,"hits":11},{"id":12,"hits":0}]`},
		{"upsert ignoring", "POST", "lib_counters", "", map[string]any{"id": 1, "label": "x"}, "resolution=ignore-duplicates", 201, "*/*", ""},
		// missing=default fills identity and default columns of the objects that omit them.
		{"missing=default", "POST", "lib_books?select=id,title,status,pages", "", []map[string]any{{"id": 50, "title": "A", "pages": 7}, {"title": "B", "status": "published"}},
			"return=representation,missing=default", 201, "*/*", `[{"id":50,"title":"A","status":"draft","pages":7},{"id":101,"title":"B","status":"published","pages":100}]`},
	} {
		t.Run(s.name, func(t *testing.T) {
			var hdr []string
			if s.prefer != "" {
				hdr = append(hdr, "Prefer", s.prefer)
			}
			r := e.do(s.method, s.path, s.bearer, s.body, hdr...)
			if r.status != s.status || r.header.Get("Content-Range") != s.rangeH || (s.want != "" && compactJSON(t, r.raw) != s.want) {
				t.Fatalf("%d %q %s, want %d %q %s", r.status, r.header.Get("Content-Range"), r.raw, s.status, s.rangeH, s.want)
			}
		})
	}
	r := e.do("GET", "lib_counters?select=id,hits,label&id=eq.1", "", nil)
	if compactJSON(t, r.raw) != `[{"id":1,"hits":11,"label":"unu"}]` {
		t.Fatalf("after the upserts: %s", r.raw)
	}
}

// SQL that used to be edited as text after it was written (issue 17 §1): a many-to-many
// !inner embed renamed the junction's alias too, and a spread alias holding " as " was cut
// in the wrong place.
func TestCompatEmbedSQL(t *testing.T) {
	e := setupCompat(t)
	for _, tc := range []struct{ name, path, want string }{
		{"m2m inner", "lib_books?select=title,lib_authors!inner(name)&order=id", `[{"title":"Drept civil","lib_authors":[{"name":"Ana"},{"name":"Bogdan"}]},{"title":"Drept penal","lib_authors":[{"name":"Bogdan"}]},{"title":"Contracte","lib_authors":[{"name":"Cristina"}]}]`},
		{"m2m inner filtered", "lib_books?select=title,lib_authors!inner(name)&lib_authors.name=eq.Cristina", `[{"title":"Contracte","lib_authors":[{"name":"Cristina"}]}]`},
		{"m2m is.null", "lib_books?select=title,lib_authors()&lib_authors=is.null&order=id", `[{"title":"Obligații"}]`},
		{"m2m not.is.null", "lib_books?select=id,lib_authors(name)&lib_authors.name=eq.Ana&lib_authors=not.is.null", `[{"id":1,"lib_authors":[{"name":"Ana"}]}]`},
		{"nested inner", "lib_authors?select=name,lib_books!inner(title,lib_authors!inner(name))&lib_books.lib_authors.name=eq.Ana&order=id", `[{"name":"Ana","lib_books":[{"title":"Drept civil","lib_authors":[{"name":"Ana"}]}]},{"name":"Bogdan","lib_books":[{"title":"Drept civil","lib_authors":[{"name":"Ana"}]}]}]`},
		{"related order", "lib_profiles?select=bio,lib_authors(name)&order=lib_authors(name).desc", `[{"bio":"Student","lib_authors":{"name":"Bogdan"}},{"bio":"Profesoară","lib_authors":{"name":"Ana"}}]`},
		{"spread alias with as", "lib_profiles?select=bio,...lib_authors(x%20as%20y:name)&author_id=eq.1", `[{"bio":"Profesoară","x as y":"Ana"}]`},
		{"quoted spread alias with as", "lib_profiles?select=bio,...lib_authors(%22x%20as%20y%22:name)&author_id=eq.1", `[{"bio":"Profesoară","x as y":"Ana"}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do("GET", tc.path, "", nil)
			if r.status != 200 || compactJSON(t, r.raw) != tc.want {
				t.Fatalf("%s: %d %s, want %s", tc.path, r.status, r.raw, tc.want)
			}
		})
	}
}
