package postgrest

import (
	"encoding/json"
	"errors"
	"flag"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// TestParseQuery pins the parser's reading of each query-string shape (as JSON of the
// parsed tree) and its PostgREST error for malformed input.
func TestParseQuery(t *testing.T) {
	cases := []struct {
		name, qs string
		want     string // JSON subset of the parsed Query; empty when an error is expected
		errCode  string
	}{
		{"star default", "", `{"Select":[{"Star":true}]}`, ""},
		{"alias cast json", "select=c:case_code::text,meta->a->>b", `{"Select":[{"Alias":"c","Column":"case_code","Cast":"text"},{"Alias":"b","Column":"meta","JSON":[{"Op":"->","Key":"a"},{"Op":"->>","Key":"b"}]}]}`, ""},
		{"embed hint inner", "select=*,a:cases!case_articles_case_id_fkey!inner(id)", `{"Select":[{"Star":true},{"Alias":"a","Embed":{"Relation":"cases","Hint":"case_articles_case_id_fkey","Inner":true,"Select":[{"Column":"id"}]}}]}`, ""},
		{"spread", "select=...cases(title)", `{"Select":[{"Spread":true,"Embed":{"Relation":"cases","Select":[{"Column":"title"}]}}]}`, ""},
		{"aggregates", "select=level,n:count(),week_number.sum()::int", `{"Select":[{"Column":"level"},{"Alias":"n","Agg":"count"},{"Column":"week_number","Cast":"int","Agg":"sum"}]}`, ""},
		{"embedded count", "select=case_articles(count())", `{"Select":[{"Embed":{"Relation":"case_articles","Select":[{"Agg":"count"}]}}]}`, ""},
		{"filter not", "title=not.ilike.*furt*", `{"Filters":{"":[{"Column":"title","Not":true,"Op":"ilike","Value":"*furt*"}]}}`, ""},
		{"fts config", "title=wfts(simple).a b", `{"Filters":{"":[{"Column":"title","Op":"wfts","Arg":"simple","Value":"a b"}]}}`, ""},
		{"embedded filter order limit", "case_articles.article_number=eq.1&case_articles.order=article_number.desc.nullslast&case_articles.limit=2", `{"Filters":{"case_articles":[{"Column":"article_number","Op":"eq","Value":"1"}]},"Order":{"case_articles":[{"Column":"article_number","Desc":true,"NullsFirst":false}]},"Limit":{"case_articles":2}}`, ""},
		{"logic tree", "or=(a.eq.1,not.and(b.gt.2,c.in.(x,y)))", `{"Logic":{"":[{"Op":"or","Filters":[{"Column":"a","Op":"eq","Value":"1"}],"Children":[{"Op":"and","Not":true,"Filters":[{"Column":"b","Op":"gt","Value":"2"},{"Column":"c","Op":"in","Value":"(x,y)"}]}]}]}}`, ""},
		{"related order", "order=cases(title).desc.nullslast,c(meta->>k),id", `{"Order":{"":[{"Relation":"cases","Column":"title","Desc":true,"NullsFirst":false},{"Relation":"c","Column":"meta","JSON":[{"Op":"->>","Key":"k"}]},{"Column":"id"}]}}`, ""},
		{"related order bad", "order=cases(title", "", "PGRST100"},
		{"related order trailing", "order=cases(title)desc", "", "PGRST100"},
		{"embed presence in or", "or=(case_articles.not.is.null,case_code.eq.x)", `{"Logic":{"":[{"Op":"or","Filters":[{"Column":"case_articles","Not":true,"Op":"is","Value":"null"},{"Column":"case_code","Op":"eq","Value":"x"}]}]}}`, ""},
		{"limit offset", "limit=5&offset=10", `{"Limit":{"":5},"Offset":{"":10}}`, ""},
		{"columns on_conflict", "columns=a,b&on_conflict=case_code", `{"Columns":["a","b"],"OnConflict":["case_code"]}`, ""},
		{"quoted columns (supabase-js)", `columns="a","b"&on_conflict="case_code"`, `{"Columns":["a","b"],"OnConflict":["case_code"]}`, ""},
		{"unknown operator", "a=foo.1", "", "PGRST100"},
		{"filter without operator", "a=1", "", "PGRST100"},
		{"bad limit", "limit=-1", "", "PGRST102"},
		{"bad order", "order=a.sideways", "", "PGRST100"},
		{"unclosed embed", "select=cases(id", "", "PGRST100"},
		{"logic without parens", "or=a.eq.1", "", "PGRST100"},
		{"bad is", "a=is.maybe", "", ""}, // parsed; rejected by the builder
		{"unknown aggregate", "select=a.median()", "", "PGRST100"},
		{"sum() is an embed named sum (PostgREST's grammar)", "select=sum()", "", ""},
		{"quote in column", `select=a"b`, "", "PGRST100"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := url.ParseQuery(c.qs)
			if err != nil {
				t.Fatal(err)
			}
			q, err := parseQuery(v, false)
			if c.errCode != "" {
				var e *Error
				if !errors.As(err, &e) || e.Code != c.errCode || e.Status != 400 {
					t.Fatalf("want %s, got %v", c.errCode, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.want == "" {
				return
			}
			var want map[string]json.RawMessage
			if err := json.Unmarshal([]byte(c.want), &want); err != nil {
				t.Fatal(err)
			}
			gotJSON, _ := json.Marshal(q)
			var got map[string]json.RawMessage
			_ = json.Unmarshal(gotJSON, &got)
			for k, w := range want {
				if normJSON(got[k]) != normJSON(w) {
					t.Errorf("%s:\n got %s\nwant %s", k, got[k], w)
				}
			}
		})
	}
}

// normJSON drops zero values so expectations list only what matters.
func normJSON(raw json.RawMessage) string {
	var v any
	_ = json.Unmarshal(raw, &v)
	b, _ := json.Marshal(prune(v))
	return string(b)
}

func prune(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			e = prune(e)
			switch e {
			case nil, false, "", 0.0:
				continue
			}
			if m, ok := e.(map[string]any); ok && len(m) == 0 {
				continue
			}
			if a, ok := e.([]any); ok && len(a) == 0 {
				continue
			}
			out[k] = e
		}
		return out
	case []any:
		for i := range x {
			x[i] = prune(x[i])
		}
	}
	return v
}

// TestGoldenSQL compares the statement built for each request in testdata/read.txt with
// testdata/read.golden (go test -run TestGoldenSQL -update rewrites it).
func TestGoldenSQL(t *testing.T) {
	sc := testSchema()
	in, err := os.ReadFile(filepath.Join("testdata", "read.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(in)), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		rel, qs, _ := strings.Cut(line, "?")
		v, err := url.ParseQuery(qs)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		out.WriteString("-- " + line + "\n")
		q, err := parseQuery(v, false)
		if err == nil {
			var sql string
			var args []any
			sql, args, err = buildRead(sc, sc.Relations["public."+rel], q)
			if err == nil {
				checkSQL(t, sql)
				a, _ := json.Marshal(args)
				out.WriteString(sql + "\n-- args " + string(a) + "\n\n")
				continue
			}
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("%s: non-API error %v", line, err)
		}
		out.WriteString("-- error " + e.Code + ": " + e.Message + "\n\n")
	}
	matchGolden(t, "read.golden", out.String())
}

// matchGolden compares generated SQL with testdata/name, or rewrites that file with -update.
func matchGolden(t *testing.T, name, got string) {
	t.Helper()
	golden := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Errorf("generated SQL differs from %s (run with -update and review the diff):\n%s", golden, got)
	}
}
