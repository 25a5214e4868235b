package postgrest

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// testSchema is a small schema cache, no database needed: cases ← case_articles
// (to-many), authors ↔ books through book_authors (many-to-many), profiles → authors
// (one-to-one: the key is the foreign key), and functions of each kind.
func testSchema() *Schema {
	cases := &Relation{Schema: "public", Name: "cases", PK: []string{"id"}, Columns: []Column{{Name: "id", Type: "uuid"}, {Name: "case_code", Type: "text"}, {Name: "title", Type: "text"}, {Name: "week_number", Type: "integer", DefaultExpr: "1"}, {Name: "tags", Type: "text[]"}, {Name: "meta", Type: "jsonb"}}}
	arts := &Relation{Schema: "public", Name: "case_articles", PK: []string{"id"}, Columns: []Column{{Name: "id", Type: "uuid"}, {Name: "case_id", Type: "uuid"}, {Name: "article_number", Type: "text"}}}
	authors := &Relation{Schema: "public", Name: "authors", PK: []string{"id"}, Columns: []Column{{Name: "id", Type: "integer"}, {Name: "name", Type: "text"}}}
	books := &Relation{Schema: "public", Name: "books", PK: []string{"id"}, Columns: []Column{{Name: "id", Type: "integer"}, {Name: "title", Type: "text"}}}
	bookAuthors := &Relation{Schema: "public", Name: "book_authors", PK: []string{"book_id", "author_id"}, Columns: []Column{{Name: "book_id", Type: "integer"}, {Name: "author_id", Type: "integer"}}}
	profiles := &Relation{Schema: "public", Name: "profiles", PK: []string{"author_id"}, Columns: []Column{{Name: "author_id", Type: "integer"}, {Name: "bio", Type: "text"}}}
	all := []*Relation{cases, arts, authors, books, bookAuthors, profiles}
	for _, r := range all {
		r.col = map[string]*Column{}
		for i := range r.Columns {
			r.col[r.Columns[i].Name] = &r.Columns[i]
		}
	}
	arts.FKs = []*FK{{Name: "case_articles_case_id_fkey", From: arts, To: cases, FromCols: []string{"case_id"}, ToCols: []string{"id"}}}
	bookAuthors.FKs = []*FK{
		{Name: "book_authors_book_id_fkey", From: bookAuthors, To: books, FromCols: []string{"book_id"}, ToCols: []string{"id"}},
		{Name: "book_authors_author_id_fkey", From: bookAuthors, To: authors, FromCols: []string{"author_id"}, ToCols: []string{"id"}},
	}
	// A computed field and a computed relationship (functions taking a row type).
	books.Computed = map[string]*ComputedField{"title_upper": {Schema: "public", Name: "title_upper", Type: "text"}}
	authors.ComputedRels = []*ComputedRel{{Schema: "public", Name: "author_books", From: authors, To: books}}
	profiles.FKs = []*FK{{Name: "profiles_author_id_fkey", From: profiles, To: authors, FromCols: []string{"author_id"}, ToCols: []string{"id"}, OneToOne: true}}
	sc := &Schema{Relations: map[string]*Relation{}, Funcs: map[string]*Func{
		"public.search_cases": {Schema: "public", Name: "search_cases", Args: []Arg{{Name: "q", Type: "text"}, {Name: "weeks", Type: "integer[]", HasDefault: true}}, ReturnsSet: true, ReturnsRow: true, Result: cases},
		"public.first_case":   {Schema: "public", Name: "first_case", Args: []Arg{{Name: "code", Type: "text"}}, ReturnsRow: true, Result: cases},
		"public.case_count":   {Schema: "public", Name: "case_count", Args: []Arg{{Name: "week", Type: "integer", HasDefault: true}}, ReturnType: "integer"},
		"public.touch":        {Schema: "public", Name: "touch", Args: []Arg{{Name: "meta", Type: "jsonb"}}, Void: true, Volatile: true},
		"public.echo":         {Schema: "public", Name: "echo", Args: []Arg{{Name: "", Type: "json"}}, ReturnType: "json", SingleJSON: true, Unnamed: "json", Volatile: true},
	}, Overloads: map[string][]*Func{}}
	for k, f := range sc.Funcs {
		sc.Overloads[k] = []*Func{f}
	}
	for _, r := range all {
		sc.Relations[r.Schema+"."+r.Name] = r
	}
	return sc
}

var quotedIdent = regexp.MustCompile(`"(?:[^"]|"")*"`)

// buildRead plans a GET of rel with q and returns Statement's SQL, as the handler runs it.
func buildRead(sc *Schema, rel *Relation, q *Query) (string, []any, error) {
	req := ApiRequest{Method: "GET", Path: "/rest/v1/" + rel.Name, Target: Target{Kind: TargetRelation, Schema: rel.Schema, Name: rel.Name}, Query: q}
	p, err := Plan(req, sc, PlanConfig{MaxRows: 1000, Aggregates: true})
	if err != nil {
		return "", nil, err
	}
	sql, args := Statement(p)
	return sql, args, nil
}

// listOf is the read statement around a select of rows: the JSON array, its row count
// and the (uncounted) total.
func listOf(rows string) string {
	return "select coalesce(json_agg(_r), '[]')::text, count(_r)::int, null::bigint from (" + rows + ") _r"
}

// The SQL a request produces contains user input only as bound parameters or as quoted
// identifiers; outside quoted identifiers there is no statement separator, comment or
// string literal other than the builder's own.
func checkSQL(t *testing.T, sql string) {
	t.Helper()
	rest := quotedIdent.ReplaceAllString(sql, "I")
	for _, bad := range []string{";", "--", "/*"} {
		if strings.Contains(rest, bad) {
			t.Fatalf("%q in generated SQL: %s", bad, sql)
		}
	}
	rest = strings.NewReplacer("'[]'", "", "'null'", "", "'_a'", "", "'{}'", "").Replace(rest)
	if strings.Contains(rest, "'") {
		t.Fatalf("string literal in generated SQL: %s", sql)
	}
}

func TestBuilderGolden(t *testing.T) {
	sc := testSchema()
	cases := []struct{ qs, want string }{
		{"select=id,code:case_code&week_number=gte.2&order=title.desc.nullslast&limit=5",
			`select _t0."id" as "id", _t0."case_code" as "code" from "public"."cases" _t0 where _t0."week_number" >= $1::text::integer order by _t0."title" desc nulls last limit 5`},
		{"select=case_code,case_articles(article_number)&case_articles.order=article_number&or=(title.ilike.*furt*,case_code.in.(A,B))",
			`select _t0."case_code" as "case_code", coalesce((select json_agg(_e2) from (select _t1."article_number" as "article_number" from "public"."case_articles" _t1 where _t1."case_id" = _t0."id" order by _t1."article_number") _e2), '[]') as "case_articles" from "public"."cases" _t0 where (_t0."title"::text ilike $1 or _t0."case_code" = any($2::text[]::text[])) limit 1000`},
		{"select=meta->a->>b&meta->>k=eq.v&not.or=(week_number.is.null)",
			`select (_t0."meta"->$1->>$2) as "b" from "public"."cases" _t0 where (_t0."meta"->>$3) = $4::text::text and not (_t0."week_number" is null) limit 1000`},
	}
	for _, c := range cases {
		v, _ := url.ParseQuery(c.qs)
		q, err := parseQuery(v, false)
		if err != nil {
			t.Fatalf("%s: %v", c.qs, err)
		}
		sql, _, err := buildRead(sc, sc.Relations["public.cases"], q)
		if err != nil {
			t.Fatalf("%s: %v", c.qs, err)
		}
		if want := listOf(c.want); sql != want {
			t.Errorf("%s\n got: %s\nwant: %s", c.qs, sql, want)
		}
		checkSQL(t, sql)
	}
}

// FuzzStatement plans every kind of request (read, insert, upsert, update, put, delete,
// call) from a fuzzed query string and body and checks the statement Statement writes.
func FuzzStatement(f *testing.F) {
	for _, s := range []string{
		"select=*,case_articles(*)&id=eq.1", "or=(a.eq.1,and(b.gt.2,c.lt.3))", "select=x:title::text&order=title.desc",
		"title=like.*;drop table x;--*", `select="a;b"&case_code=in.("x","y")`, "select=meta->'x'->>y", "limit=1&offset=2",
		"select=...cases(title)", "tags=cs.{a,b}&title=fts(english).foo",
		"select=week_number,n:count(),week_number.sum()::int", "select=case_articles(count())", `columns="a","b"`,
		"select=id,cases(title)&order=cases(title).desc.nullslast,id", "select=*,c:cases(*)&order=c(meta->>k)&c.week_number=gt.1",
		"select=*,case_articles(id)&or=(case_articles.not.is.null,title.eq.x)&not.and=(case_articles.is.null)",
		"id=eq.1&select=id,title", "on_conflict=case_code&columns=case_code,title", "q=furt&weeks={1,2}",
	} {
		f.Add(s, `{"id":"x","title":"t'; --"}`)
	}
	f.Add("id=eq.1", `[{"case_code":"a"},{"case_code":"b","title":"$1"}]`)
	f.Add("", `{"q":"a","weeks":[1,2]}`)
	sc := testSchema()
	kinds := []struct{ method, path, prefer string }{
		{"GET", "cases", "count=exact"}, {"GET", "case_articles", ""}, {"GET", "books", ""},
		{"POST", "cases", "return=representation"}, {"POST", "cases", "resolution=merge-duplicates,missing=default"},
		{"PATCH", "cases", "return=representation"}, {"PUT", "cases", ""}, {"DELETE", "cases", "return=representation"},
		{"GET", "rpc/search_cases", ""}, {"POST", "rpc/search_cases", ""}, {"POST", "rpc/case_count", ""},
		{"POST", "rpc/touch", ""}, {"POST", "rpc/echo", ""}, {"GET", "rpc/first_case", ""},
		{"GET", "cases", "Accept: application/vnd.pgrst.object+json;nulls=stripped"},
	}
	f.Fuzz(func(t *testing.T, qs, body string) {
		if _, err := url.ParseQuery(qs); err != nil {
			return
		}
		for _, k := range kinds {
			p, err := planFor(sc, k.method, k.path+"?"+qs, k.prefer, body)
			if err != nil {
				if _, ok := err.(*Error); !ok {
					t.Fatalf("%s %s: non-API error %T: %v", k.method, k.path, err, err)
				}
				continue
			}
			sql, args := Statement(p)
			if m, ok := p.(*MutatePlan); ok && m.Empty {
				continue
			}
			checkSQL(t, sql)
			if n := maxParam(sql); n != len(args) {
				t.Fatalf("%s %s: %d args but highest parameter $%d in %s", k.method, k.path, len(args), n, sql)
			}
		}
	})
}

var paramRef = regexp.MustCompile(`\$([0-9]+)`)

// maxParam is the highest $n the statement references outside quoted identifiers.
func maxParam(sql string) int {
	n := 0
	for _, m := range paramRef.FindAllStringSubmatch(quotedIdent.ReplaceAllString(sql, "I"), -1) {
		if v, _ := strconv.Atoi(m[1]); v > n {
			n = v
		}
	}
	return n
}

// planFor runs Parse and Plan on a request to /rest/v1/<pathQuery>; headers is a Prefer
// value, or "Name: value" pairs separated by " && ".
func planFor(sc *Schema, method, pathQuery, headers, body string) (ActionPlan, error) {
	path, qs, _ := strings.Cut(pathQuery, "?")
	r := &http.Request{Method: method, URL: &url.URL{Path: "/rest/v1/" + path, RawQuery: qs}, Header: http.Header{},
		Body: io.NopCloser(strings.NewReader(body))}
	for _, h := range strings.Split(headers, " && ") {
		if k, v, ok := strings.Cut(h, ": "); ok {
			r.Header.Set(k, v)
		} else if h != "" {
			r.Header.Set("Prefer", h)
		}
	}
	req, err := Parse(r, []string{"public"})
	if err != nil {
		return nil, err
	}
	return Plan(req, sc, PlanConfig{MaxRows: 1000})
}

// TestGoldenStatements compares the statement of each request in testdata/statements.txt
// (every plan kind, through Parse, Plan and Statement) with testdata/statements.golden
// (go test -run TestGoldenStatements -update rewrites it).
func TestGoldenStatements(t *testing.T) {
	sc := testSchema()
	in, err := os.ReadFile(filepath.Join("testdata", "statements.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(in)), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, "|", 3)
		for len(parts) < 3 {
			parts = append(parts, "")
		}
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		method, target, _ := strings.Cut(parts[0], " ")
		out.WriteString("-- " + line + "\n")
		p, err := planFor(sc, method, target, parts[1], parts[2])
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%s: non-API error %v", line, err)
			}
			out.WriteString("-- error " + e.Code + ": " + e.Message + "\n\n")
			continue
		}
		sql, args := Statement(p)
		if sql == "" {
			out.WriteString("-- no statement\n\n")
			continue
		}
		checkSQL(t, sql)
		if n := maxParam(sql); n != len(args) {
			t.Errorf("%s: %d args, highest parameter $%d", line, len(args), n)
		}
		a, _ := json.Marshal(args)
		out.WriteString(sql + "\n-- args " + string(a) + "\n\n")
	}
	matchGolden(t, "statements.golden", out.String())
}
