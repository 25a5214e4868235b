package postgrest

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// testSchema is a small schema cache: cases ← case_articles, no database needed.
func testSchema() *Schema {
	cases := &Relation{Schema: "public", Name: "cases", PK: []string{"id"}, Columns: []Column{{Name: "id", Type: "uuid"}, {Name: "case_code", Type: "text"}, {Name: "title", Type: "text"}, {Name: "week_number", Type: "integer"}, {Name: "tags", Type: "text[]"}, {Name: "meta", Type: "jsonb"}}}
	arts := &Relation{Schema: "public", Name: "case_articles", PK: []string{"id"}, Columns: []Column{{Name: "id", Type: "uuid"}, {Name: "case_id", Type: "uuid"}, {Name: "article_number", Type: "text"}}}
	for _, r := range []*Relation{cases, arts} {
		r.col = map[string]*Column{}
		for i := range r.Columns {
			r.col[r.Columns[i].Name] = &r.Columns[i]
		}
	}
	arts.FKs = []*FK{{Name: "case_articles_case_id_fkey", From: arts, To: cases, FromCols: []string{"case_id"}, ToCols: []string{"id"}}}
	return &Schema{Relations: map[string]*Relation{"public.cases": cases, "public.case_articles": arts}, Funcs: map[string]*Func{}}
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
	rest = strings.NewReplacer("'[]'", "", "'null'", "").Replace(rest)
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

func FuzzQueryToSQL(f *testing.F) {
	for _, s := range []string{
		"select=*,case_articles(*)&id=eq.1", "or=(a.eq.1,and(b.gt.2,c.lt.3))", "select=x:title::text&order=title.desc",
		"title=like.*;drop table x;--*", `select="a;b"&case_code=in.("x","y")`, "select=meta->'x'->>y", "limit=1&offset=2",
		"select=...cases(title)", "tags=cs.{a,b}&title=fts(english).foo",
		"select=week_number,n:count(),week_number.sum()::int", "select=case_articles(count())", `columns="a","b"`,
		"select=id,cases(title)&order=cases(title).desc.nullslast,id", "select=*,c:cases(*)&order=c(meta->>k)&c.week_number=gt.1",
		"select=*,case_articles(id)&or=(case_articles.not.is.null,title.eq.x)&not.and=(case_articles.is.null)",
	} {
		f.Add(s)
	}
	sc := testSchema()
	f.Fuzz(func(t *testing.T, qs string) {
		v, err := url.ParseQuery(qs)
		if err != nil {
			return
		}
		for _, relName := range []string{"public.cases", "public.case_articles"} {
			q, err := parseQuery(v, false)
			if err != nil {
				return
			}
			sql, args, err := buildRead(sc, sc.Relations[relName], q)
			if err != nil {
				if _, ok := err.(*Error); !ok {
					t.Fatalf("non-API error %T: %v", err, err)
				}
				continue
			}
			checkSQL(t, sql)
			if strings.Count(sql, "$") < len(args) {
				t.Fatalf("%d args but SQL %s", len(args), sql)
			}
		}
	})
}
