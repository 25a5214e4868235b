package postgrest_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/config"
	"casus/server/internal/testutil/pgtest"
	"casus/server/internal/testutil/testserver"
)

// setupFeatures starts the core alone on a database holding the core fixture's parts 100
// and 110 (issue 17 §2), with tweak applied to the configuration.
func setupFeatures(t *testing.T, tweak func(*config.Config)) *env {
	_, here, _, _ := runtime.Caller(0)
	url := pgtest.NewPlatform(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"100_postgrest.sql", "110_postgrest_features.sql"} {
		b, err := os.ReadFile(filepath.Join(filepath.Dir(here), "../../../frontend/tests/compat/core/fixture", f))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, string(b)); err != nil {
			t.Fatalf("fixture %s: %v", f, err)
		}
	}
	_ = conn.Close(ctx)
	srv := testserver.Start(t, func(c *config.Config) {
		c.App = "none"
		c.DatabaseURL = url
		c.DBSchemas = []string{"public", "lib_extra"}
		if tweak != nil {
			tweak(c)
		}
	})
	return &env{t: t, srv: srv}
}

// featureCase is one request and what PostgREST answers to it.
type featureCase struct {
	name, method, path string
	body               string
	hdr                []string
	status             int
	want               string // compact JSON body; "" skips the check
	rangeH             string // Content-Range; "" skips the check
}

func (e *env) runFeatureCases(t *testing.T, cases []featureCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.method
			if m == "" {
				m = "GET"
			}
			r := e.raw(m, tc.path, "", tc.body, tc.hdr...)
			got := r.raw
			if tc.want != "" && json.Valid([]byte(r.raw)) {
				got = compactJSON(t, r.raw)
			}
			if r.status != tc.status || (tc.want != "" && got != tc.want) || (tc.rangeH != "" && r.header.Get("Content-Range") != tc.rangeH) {
				t.Fatalf("%s %s:\n got %d %q %s\nwant %d %q %s", m, tc.path, r.status, r.header.Get("Content-Range"), r.raw, tc.status, tc.rangeH, tc.want)
			}
		})
	}
}

// errorBody compares a PostgREST error body member by member (details may be an array).
func errorBody(t *testing.T, r resp, status int, want map[string]any) {
	t.Helper()
	var got map[string]any
	if err := json.Unmarshal([]byte(r.raw), &got); err != nil {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	wantJSON, _ := json.Marshal(want)
	var w map[string]any
	_ = json.Unmarshal(wantJSON, &w)
	if r.status != status || !reflect.DeepEqual(got, w) {
		t.Fatalf("got %d %s\nwant %d %s", r.status, r.raw, status, wantJSON)
	}
}

// RPC: counts, the one-unnamed-parameter rule, row-type arguments, overloads chosen by
// argument names, embedding on a function's rows.
func TestFeatureRPC(t *testing.T) {
	e := setupFeatures(t, nil)
	exact := []string{"Prefer", "count=exact"}
	e.runFeatureCases(t, []featureCase{
		{name: "setof counted", method: "POST", path: "rpc/lib_books_after?select=id", body: `{"y":2020}`, hdr: exact, status: 200, want: `[{"id":2},{"id":3}]`, rangeH: "0-1/2"},
		{name: "setof counted partial", path: "rpc/lib_books_after?y=2019&select=id&order=id&limit=1", hdr: exact, status: 206, want: `[{"id":1}]`, rangeH: "0-0/3"},
		{name: "setof not counted", path: "rpc/lib_books_after?y=2019&select=id&order=id&limit=1", status: 200, want: `[{"id":1}]`, rangeH: "0-0/*"},
		{name: "scalar counted", path: "rpc/lib_greet?name=Ana", hdr: exact, status: 200, want: `"Salut, Ana"`, rangeH: "0-0/1"},
		{name: "embed on rpc rows", path: "rpc/lib_books_after?y=2020&select=title,lib_authors(name)&order=id", status: 200,
			want: `[{"title":"Drept penal","lib_authors":[{"name":"Bogdan"}]},{"title":"Contracte","lib_authors":[{"name":"Cristina"}]}]`},
		{name: "computed field on rpc rows", path: "rpc/lib_books_after?y=2021&select=title_upper", status: 200, want: `[{"title_upper":"CONTRACTE"}]`},
		{name: "overload by one name", path: "rpc/lib_greet?name=Ana", status: 200, want: `"Salut, Ana"`},
		{name: "overload by two names", method: "POST", path: "rpc/lib_greet", body: `{"first":"Ana","last":"Pop"}`, status: 200, want: `"Salut, Ana Pop"`},
		{name: "unnamed text", method: "POST", path: "rpc/lib_echo_text", body: "salut", hdr: []string{"Content-Type", "text/plain"}, status: 200, want: `"text: salut"`},
		{name: "unnamed json", method: "POST", path: "rpc/lib_echo_json", body: `{"a":[1,2]}`, status: 200, want: `{"got":{"a":[1,2]}}`},
		{name: "unnamed bytea", method: "POST", path: "rpc/lib_echo_bytea", body: "\x00\x01\x02", hdr: []string{"Content-Type", "application/octet-stream"}, status: 200, want: `3`},
		{name: "row-type argument", method: "POST", path: "rpc/lib_author_label", body: `{"a":{"id":7,"name":"Ion","mentor_id":null}}`, status: 200, want: `"Ion #7"`},
	})

	t.Run("PGRST202 unknown argument", func(t *testing.T) {
		errorBody(t, e.do("GET", "rpc/lib_greet?nope=1", "", nil), 404, map[string]any{
			"code": "PGRST202", "message": "Could not find the function public.lib_greet(nope) in the schema cache",
			"details": "Searched for the function public.lib_greet with parameter nope, but no matches were found in the schema cache.",
			"hint":    "Perhaps you meant to call the function public.lib_greet(name)"})
	})
	t.Run("PGRST202 posted json", func(t *testing.T) {
		errorBody(t, e.do("POST", "rpc/lib_greet", "", `{"first":"Ana","middle":"M","last":"Pop"}`), 404, map[string]any{
			"code": "PGRST202", "message": "Could not find the function public.lib_greet(first, last, middle) in the schema cache",
			"details": "Searched for the function public.lib_greet with parameters first, last, middle or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.",
			"hint":    "Perhaps you meant to call the function public.lib_greet(first, last)"})
	})
	t.Run("PGRST202 no such function", func(t *testing.T) {
		errorBody(t, e.do("GET", "rpc/lib_greett", "", nil), 404, map[string]any{
			"code": "PGRST202", "message": "Could not find the function public.lib_greett without parameters in the schema cache",
			"details": "Searched for the function public.lib_greett without parameters, but no matches were found in the schema cache.",
			"hint":    "Perhaps you meant to call the function public.lib_greet"})
		errorBody(t, e.do("GET", "rpc/zzzz_nothing_alike", "", nil), 404, map[string]any{
			"code": "PGRST202", "message": "Could not find the function public.zzzz_nothing_alike without parameters in the schema cache",
			"details": "Searched for the function public.zzzz_nothing_alike without parameters, but no matches were found in the schema cache.",
			"hint":    nil})
	})
	t.Run("PGRST202 single unnamed text with another media type", func(t *testing.T) {
		errorBody(t, e.do("POST", "rpc/lib_echo_json", "", "x", "Content-Type", "text/plain"), 404, map[string]any{
			"code": "PGRST202", "message": "Could not find the function public.lib_echo_json in the schema cache",
			"details": "Searched for the function public.lib_echo_json with a single unnamed text parameter, but no matches were found in the schema cache.",
			"hint":    nil})
	})
	t.Run("PGRST203 ambiguous overloads", func(t *testing.T) {
		errorBody(t, e.do("GET", "rpc/lib_pick?v=1", "", nil), 300, map[string]any{
			"code": "PGRST203", "message": "Could not choose the best candidate function between: public.lib_pick(v => integer), public.lib_pick(v => text)",
			"details": nil, "hint": "Try renaming the parameters or the function itself in the database so function overloading can be resolved"})
	})
}

// Column names with spaces, quoted or not, in select, filters, logic trees and order.
func TestFeatureQuotedColumns(t *testing.T) {
	e := setupFeatures(t, nil)
	e.runFeatureCases(t, []featureCase{
		{name: "quoted select and filter", path: `lib_shelves?select=%22shelf%20name%22,id&%22book%20id%22=eq.1`, status: 200, want: `[{"shelf name":"raft de sus","id":1}]`},
		{name: "unquoted with spaces", path: `lib_shelves?select=id,shelf%20name&shelf%20name=eq.raft%20gol`, status: 200, want: `[{"id":3,"shelf name":"raft gol"}]`},
		{name: "alias of a quoted column", path: `lib_shelves?select=shelf:%22shelf%20name%22&id=eq.2`, status: 200, want: `[{"shelf":"raft de jos"}]`},
		{name: "order quoted", path: `lib_shelves?select=id&order=%22shelf%20name%22.desc`, status: 200, want: `[{"id":3},{"id":1},{"id":2}]`},
		{name: "order unquoted", path: `lib_shelves?select=id&order=shelf%20name.asc`, status: 200, want: `[{"id":2},{"id":1},{"id":3}]`},
		{name: "logic tree", path: `lib_shelves?select=id&or=(%22shelf%20name%22.eq.raft%20gol,id.eq.1)&order=id`, status: 200, want: `[{"id":1},{"id":3}]`},
		{name: "is null", path: `lib_shelves?select=id&%22book%20id%22=is.null`, status: 200, want: `[{"id":3}]`},
		{name: "embed through a spaced column", path: `lib_shelves?select=id,lib_books(title)&id=eq.1`, status: 200, want: `[{"id":1,"lib_books":{"title":"Drept civil"}}]`},
	})
}

// Relationships: constraint names, views, self-references in both directions, computed
// relationships, and PGRST200/201 as PostgREST writes them.
func TestFeatureRelationships(t *testing.T) {
	e := setupFeatures(t, nil)
	e.runFeatureCases(t, []featureCase{
		{name: "hint by constraint name", path: "lib_loans?select=id,lib_authors!loan_borrower(name)&order=id", status: 200,
			want: `[{"id":1,"lib_authors":{"name":"Cristina"}},{"id":2,"lib_authors":{"name":"Dan"}},{"id":3,"lib_authors":{"name":"Dan"}}]`},
		{name: "constraint name as target", path: "lib_loans?select=id,lender:loan_lender(name)&order=id", status: 200,
			want: `[{"id":1,"lender":{"name":"Ana"}},{"id":2,"lender":{"name":"Bogdan"}},{"id":3,"lender":null}]`},
		{name: "hint by column", path: "lib_loans?select=id,lib_authors!lender_id(name)&id=eq.2", status: 200, want: `[{"id":2,"lib_authors":{"name":"Bogdan"}}]`},
		{name: "to-many by constraint name", path: "lib_authors?select=name,lib_loans!loan_lender(id)&id=eq.1", status: 200, want: `[{"name":"Ana","lib_loans":[{"id":1}]}]`},
		// A view over a table keeps the table's foreign keys, renamed columns included.
		{name: "view many-to-one", path: "lib_loans_view?select=id,lib_books(title)&order=id", status: 200,
			want: `[{"id":1,"lib_books":{"title":"Drept civil"}},{"id":2,"lib_books":{"title":"Drept penal"}},{"id":3,"lib_books":{"title":"Drept civil"}}]`},
		{name: "view renamed fk column", path: "lib_loans_view?select=id,lib_authors(name)&id=eq.1", status: 200, want: `[{"id":1,"lib_authors":{"name":"Cristina"}}]`},
		{name: "view one-to-many", path: "lib_books?select=title,lib_loans_view(id)&id=eq.1&lib_loans_view.order=id", status: 200,
			want: `[{"title":"Drept civil","lib_loans_view":[{"id":1},{"id":3}]}]`},
		{name: "view many-to-many", path: "lib_books_view?select=title,lib_authors(name)&id=eq.2", status: 200, want: `[{"title":"Drept penal","lib_authors":[{"name":"Bogdan"}]}]`},
		// Self-reference: the table's name gives the children, the FK column the parent;
		// with the column as hint, the children again (PostgREST's convention).
		{name: "self parent by column", path: "lib_authors?select=name,mentor:mentor_id(name)&id=eq.2", status: 200, want: `[{"name":"Bogdan","mentor":{"name":"Ana"}}]`},
		{name: "self children by table", path: "lib_authors?select=name,lib_authors(name)&id=eq.2", status: 200, want: `[{"name":"Bogdan","lib_authors":[{"name":"Dan"}]}]`},
		{name: "self children by hint", path: "lib_authors?select=name,mentees:lib_authors!mentor_id(name)&id=eq.1&mentees.order=name", status: 200,
			want: `[{"name":"Ana","mentees":[{"name":"Bogdan"},{"name":"Cristina"}]}]`},
		{name: "self both ways nested", path: "lib_authors?select=name,mentor:mentor_id(name,mentees:lib_authors!mentor_id(name))&id=eq.4", status: 200,
			want: `[{"name":"Dan","mentor":{"name":"Bogdan","mentees":[{"name":"Dan"}]}}]`},
		// Computed relationships.
		{name: "computed to-many", path: "lib_authors?select=name,lib_author_books(title)&id=eq.2", status: 200,
			want: `[{"name":"Bogdan","lib_author_books":[{"title":"Drept civil"},{"title":"Drept penal"}]}]`},
		{name: "computed to-one", path: "lib_books?select=title,lead:lib_book_lead(name)&id=in.(1,4)&order=id", status: 200,
			want: `[{"title":"Drept civil","lead":{"name":"Ana"}},{"title":"Obligații","lead":null}]`},
		{name: "computed filtered", path: "lib_authors?select=name,lib_author_books!inner(title)&lib_author_books.year=eq.2022", status: 200,
			want: `[{"name":"Cristina","lib_author_books":[{"title":"Contracte"}]}]`},
	})
	t.Run("PGRST201", func(t *testing.T) {
		errorBody(t, e.do("GET", "lib_loans?select=id,lib_authors(name)", "", nil), 300, map[string]any{
			"code": "PGRST201", "message": "Could not embed because more than one relationship was found for 'lib_loans' and 'lib_authors'",
			"details": []map[string]string{
				{"cardinality": "many-to-one", "embedding": "lib_loans with lib_authors", "relationship": "loan_borrower using lib_loans(borrower_id) and lib_authors(id)"},
				{"cardinality": "many-to-one", "embedding": "lib_loans with lib_authors", "relationship": "loan_lender using lib_loans(lender_id) and lib_authors(id)"},
			},
			"hint": "Try changing 'lib_authors' to one of the following: 'lib_authors!loan_borrower', 'lib_authors!loan_lender'. Find the desired relationship in the 'details' key."})
		errorBody(t, e.do("GET", "lib_authors?select=id,lib_loans(id)", "", nil), 300, map[string]any{
			"code": "PGRST201", "message": "Could not embed because more than one relationship was found for 'lib_authors' and 'lib_loans'",
			"details": []map[string]string{
				{"cardinality": "one-to-many", "embedding": "lib_authors with lib_loans", "relationship": "loan_borrower using lib_authors(id) and lib_loans(borrower_id)"},
				{"cardinality": "one-to-many", "embedding": "lib_authors with lib_loans", "relationship": "loan_lender using lib_authors(id) and lib_loans(lender_id)"},
			},
			"hint": "Try changing 'lib_loans' to one of the following: 'lib_loans!loan_borrower', 'lib_loans!loan_lender'. Find the desired relationship in the 'details' key."})
	})
	t.Run("PGRST200", func(t *testing.T) {
		errorBody(t, e.do("GET", "lib_loans?select=id,lib_book(title)", "", nil), 400, map[string]any{
			"code": "PGRST200", "message": "Could not find a relationship between 'lib_loans' and 'lib_book' in the schema cache",
			"details": "Searched for a foreign key relationship between 'lib_loans' and 'lib_book' in the schema 'public', but no matches were found.",
			"hint":    "Perhaps you meant 'lib_books' instead of 'lib_book'."})
		errorBody(t, e.do("GET", "lib_loans?select=id,lib_authors!nope(name)", "", nil), 400, map[string]any{
			"code": "PGRST200", "message": "Could not find a relationship between 'lib_loans' and 'lib_authors' in the schema cache",
			"details": "Searched for a foreign key relationship between 'lib_loans' and 'lib_authors' using the hint 'nope' in the schema 'public', but no matches were found.",
			"hint":    nil})
	})
}

// Computed fields: functions taking the row type, in select, filters and order; never in *.
func TestFeatureComputedFields(t *testing.T) {
	e := setupFeatures(t, nil)
	e.runFeatureCases(t, []featureCase{
		{name: "select", path: "lib_books?select=id,title_upper&id=eq.1", status: 200, want: `[{"id":1,"title_upper":"DREPT CIVIL"}]`},
		{name: "filter", path: "lib_books?select=id&title_upper=eq.CONTRACTE", status: 200, want: `[{"id":3}]`},
		{name: "order and alias", path: "lib_books?select=id,len:title_length&title_length=lt.10&order=title_length.desc,id", status: 200, want: `[{"id":3,"len":9},{"id":4,"len":9}]`},
		{name: "in embed", path: "lib_authors?select=name,lib_books(title_upper)&id=eq.3", status: 200, want: `[{"name":"Cristina","lib_books":[{"title_upper":"CONTRACTE"}]}]`},
		{name: "not in star", path: "lib_books?id=eq.4&select=*", status: 200, want: `[{"id":4,"title":"Obligații","year":null,"status":"draft","pages":100,"span":null,"note":" spaced "}]`},
		{name: "logic tree", path: "lib_books?select=id&or=(title_upper.eq.CONTRACTE,id.eq.1)&order=id", status: 200, want: `[{"id":1},{"id":3}]`},
	})
	e.expectErr(e.do("GET", "lib_books?select=id,nope_field", "", nil), 400, "42703")
}

// Aggregates are PostgREST's db-aggregates-enabled: off by default (PGRST123).
func TestFeatureAggregates(t *testing.T) {
	off := setupFeatures(t, func(c *config.Config) { c.DBAggregatesEnabled = false })
	for _, p := range []string{"lib_books?select=count()", "lib_books?select=pages.sum()", "lib_authors?select=name,lib_books(count())",
		"lib_authors?select=name,lib_books(pages.max())", "lib_loans?select=id,...lib_books(pages.sum())"} {
		errorBody(t, off.do("GET", p, "", nil), 400, map[string]any{"code": "PGRST123", "message": "Use of aggregate functions is not allowed", "details": nil, "hint": nil})
	}
	// rel(count) is PostgreSQL's own rel.count (count(rel)), not one of PostgREST's
	// aggregates: it works either way.
	off.runFeatureCases(t, []featureCase{{name: "rel(count) without aggregates", path: "lib_authors?select=name,lib_books(count)&id=in.(2,4)&order=id", status: 200,
		want: `[{"name":"Bogdan","lib_books":[{"count":2}]},{"name":"Dan","lib_books":[{"count":0}]}]`}})
	e := setupFeatures(t, func(c *config.Config) { c.DBAggregatesEnabled = true })
	e.runFeatureCases(t, []featureCase{
		{name: "count grouped", path: "lib_books?select=status,count()&order=status", status: 200, want: `[{"status":"draft","count":2},{"status":"published","count":2}]`},
		{name: "sum max avg min", path: "lib_books?select=pages.sum(),year.max(),year.min(),avg:pages.avg()::int", status: 200, want: `[{"sum":400,"max":2022,"min":2020,"avg":100}]`},
		{name: "rel(count)", path: "lib_authors?select=name,lib_books(count)&order=id", status: 200,
			want: `[{"name":"Ana","lib_books":[{"count":1}]},{"name":"Bogdan","lib_books":[{"count":2}]},{"name":"Cristina","lib_books":[{"count":1}]},{"name":"Dan","lib_books":[{"count":0}]}]`},
		{name: "embedded count()", path: "lib_authors?select=name,lib_books(count())&id=eq.2", status: 200, want: `[{"name":"Bogdan","lib_books":[{"count":2}]}]`},
	})
}

// Spreads on to-many relationships give arrays (PostgREST v13+).
func TestFeatureToManySpread(t *testing.T) {
	e := setupFeatures(t, nil)
	e.runFeatureCases(t, []featureCase{
		{name: "to-many spread", path: "lib_authors?select=name,...lib_books(title,year)&id=eq.2&lib_books.order=id", status: 200,
			want: `[{"name":"Bogdan","title":["Drept civil","Drept penal"],"year":[2020,2021]}]`},
		{name: "to-many spread empty", path: "lib_authors?select=name,...lib_books(title)&id=eq.4", status: 200, want: `[{"name":"Dan","title":[]}]`},
		{name: "to-one spread unchanged", path: "lib_loans?select=id,...lib_books(title)&id=eq.2", status: 200, want: `[{"id":2,"title":"Drept penal"}]`},
	})
}

// Accept: application/vnd.pgrst.plan is PostgREST's db-plan-enabled: off by default.
func TestFeaturePlan(t *testing.T) {
	off := setupFeatures(t, nil)
	off.expectErr(off.do("GET", "lib_books?select=id", "", nil, "Accept", "application/vnd.pgrst.plan+json"), 406, "PGRST107")
	e := setupFeatures(t, func(c *config.Config) { c.DBPlanEnabled = true })
	r := e.do("GET", "lib_books?select=id&id=eq.1", "", nil, "Accept", "application/vnd.pgrst.plan+json")
	var plan []map[string]any
	if err := json.Unmarshal([]byte(r.raw), &plan); r.status != 200 || err != nil || len(plan) != 1 || plan[0]["Plan"] == nil ||
		r.header.Get("Content-Type") != `application/vnd.pgrst.plan+json; for="application/json"; charset=utf-8` {
		t.Fatalf("json plan: %d %q %s", r.status, r.header.Get("Content-Type"), r.raw)
	}
	r = e.do("GET", "lib_books?select=id", "", nil, "Accept", "application/vnd.pgrst.plan+text; options=analyze")
	if r.status != 200 || !strings.Contains(r.raw, "Execution Time") || r.header.Get("Content-Type") != `application/vnd.pgrst.plan+text; for="application/json"; options=analyze; charset=utf-8` {
		t.Fatalf("text plan with analyze: %d %q %s", r.status, r.header.Get("Content-Type"), r.raw)
	}
	// A write's plan: with analyze it runs, unless tx=rollback.
	r = e.do("PATCH", "lib_counters?id=eq.1", "", map[string]any{"hits": 42}, "Accept", "application/vnd.pgrst.plan; options=analyze|verbose", "Prefer", "tx=rollback")
	if r.status != 200 || !strings.Contains(r.raw, "Update on public.lib_counters") ||
		r.header.Get("Content-Type") != `application/vnd.pgrst.plan+text; for="application/json"; options=analyze|verbose; charset=utf-8` {
		t.Fatalf("write plan: %d %q %s", r.status, r.header.Get("Content-Type"), r.raw)
	}
	if r = e.do("GET", "lib_counters?select=hits&id=eq.1", "", nil); compactJSON(t, r.raw) != `[{"hits":5}]` {
		t.Fatalf("tx=rollback kept the analyzed write: %s", r.raw)
	}
}

// PostGIS geometry columns answer as GeoJSON; application/geo+json answers a
// FeatureCollection. Skipped where PostGIS is not installed (scripts/install-test-deps.sh
// installs it; the fixture creates lib_places only when the extension is available).
func TestFeatureGeoJSON(t *testing.T) {
	e := setupFeatures(t, nil)
	if r := e.raw("GET", "lib_places?select=id", "", ""); r.status == 404 {
		t.Skip("PostGIS is not installed")
	}
	e.runFeatureCases(t, []featureCase{
		// PostGIS's own geometry → json cast (as in PostgREST) names the SRID.
		{name: "geometry as GeoJSON", path: "lib_places?select=name,location", status: 200,
			want: `[{"name":"Biblioteca","location":{"type":"Point","crs":{"type":"name","properties":{"name":"EPSG:4326"}},"coordinates":[26.1,44.43]}}]`},
		{name: "FeatureCollection", path: "lib_places?select=id,name,location", hdr: []string{"Accept", "application/geo+json"}, status: 200,
			want: `{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[26.1,44.43]},"properties":{"id":1,"name":"Biblioteca"}}]}`},
	})
	r := e.do("GET", "lib_places?select=id,location", "", nil, "Accept", "application/geo+json")
	if r.header.Get("Content-Type") != "application/geo+json; charset=utf-8" {
		t.Fatalf("content type %q", r.header.Get("Content-Type"))
	}
}

// Issue 28, the postgrest-js suite's gaps: a to-one spread's columns are the parent's own
// (PostgREST joins the spread relation laterally), so they group beside aggregates and
// aggregate themselves; "...rel(*)" spreads every column; "sum()" with no column is an
// embed named sum in PostgREST's grammar (PGRST200); PGRST203 lists the candidates sorted
// by their parameters, as PostgREST's schema cache keeps them.
func TestFeatureSpreadsWithAggregates(t *testing.T) {
	e := setupFeatures(t, nil)
	e.ddl(`create function public.lib_amb() returns void language sql stable as '';
	       create function public.lib_amb(a text) returns int language sql stable as 'select 1';
	       create function public.lib_amb(a int) returns text language sql stable as $$ select 'x' $$;
	       create function public.lib_amb_probe() returns int language sql stable as 'select 1'`, "rpc/lib_amb_probe", "")
	e.runFeatureCases(t, []featureCase{
		{name: "embedded level: count() and a spread", path: "lib_loans?select=id,lib_authors!loan_borrower(count(),...lib_profiles(bio))&order=id", status: 200,
			want: `[{"id":1,"lib_authors":{"count":1,"bio":null}},{"id":2,"lib_authors":{"count":1,"bio":null}},{"id":3,"lib_authors":{"count":1,"bio":null}}]`},
		{name: "sum beside a spread, sum inside it", path: "lib_loans?select=id,lib_authors!loan_lender(id.sum(),...lib_profiles(pid:author_id.sum(),bio))&order=id", status: 200,
			want: `[{"id":1,"lib_authors":{"sum":1,"pid":1,"bio":"Profesoară"}},{"id":2,"lib_authors":{"sum":2,"pid":2,"bio":"Student"}},{"id":3,"lib_authors":null}]`},
		{name: "spread of every column", path: "lib_authors?select=name,...lib_profiles(*)&id=in.(1,3)&order=id", status: 200,
			want: `[{"name":"Ana","author_id":1,"bio":"Profesoară"},{"name":"Cristina","author_id":null,"bio":null}]`},
		{name: "spread of every column beside count()", path: "lib_loans?select=id,lib_authors!loan_lender(count(),...lib_profiles(*))&id=eq.2", status: 200,
			want: `[{"id":2,"lib_authors":{"count":1,"author_id":2,"bio":"Student"}}]`},
		{name: "sum() without a column is an embed", path: "lib_authors?select=sum()", status: 400,
			want: `{"code":"PGRST200","details":"Searched for a foreign key relationship between 'lib_authors' and 'sum' in the schema 'public', but no matches were found.","hint":null,"message":"Could not find a relationship between 'lib_authors' and 'sum' in the schema cache"}`},
		{name: "PGRST203 in PostgREST's order", path: "rpc/lib_amb?a=1", status: 300,
			want: `{"code":"PGRST203","details":null,"hint":"Try renaming the parameters or the function itself in the database so function overloading can be resolved","message":"Could not choose the best candidate function between: public.lib_amb(a =\u003e integer), public.lib_amb(a =\u003e text)"}`},
		{name: "the overload without arguments is callable", path: "rpc/lib_amb", status: 204},
	})
}
