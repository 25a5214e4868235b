package postgrest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Query strings past the bounds are refused with PostgREST's parse-error shape before
// any parsing, and quickly: nesting used to cost the parser quadratic time, PostgreSQL
// seconds of planning per nested embed level or all its parser's memory for a deep or=,
// and a long JSON path more parameters than the protocol carries (a 500).
func TestQueryLimitsAnswer400BeforeParsing(t *testing.T) {
	e := setup(t)
	a := e.token("authenticated", userA)
	nest := func(open, leaf string, n int) string {
		return strings.Repeat(open+"(", n) + leaf + strings.Repeat(")", n)
	}
	path := func(n int) string { return "conversation_data" + strings.Repeat("->a", n) }
	cases := []struct {
		name, query string
	}{
		{"long query string", "cases?select=" + nest("x", "id", 6000)},
		{"embeds nested too deep", "law_categories?select=" + nestedEmbeds(9)},
		{"too many embeds", "cases?select=id" + strings.Repeat(",case_articles(id)", 33)},
		{"long JSON path in select", "chat_conversations?select=" + path(17)},
		{"long JSON path in a filter", "chat_conversations?select=id&" + path(17) + "=eq.1"},
		{"JSON path of 70,000 steps", "chat_conversations?select=" + path(70000)},
		{"or nested too deep", "cases?select=id&or=" + nest("or", "id.eq.x", 17)[2:]},
		{"or nested 1,500 deep, within the length bound", "cases?select=id&or=" + nest("or", "id.eq.x", 1500)[2:]},
		{"or nested 10,000 deep", "cases?select=id&or=" + nest("or", "id.eq.x", 10000)[2:]},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			r := e.raw("GET", c.query, a, "")
			var m map[string]any
			_ = json.Unmarshal([]byte(r.raw), &m)
			if d, ok := m["details"].(string); r.status != 400 || m["code"] != "PGRST100" || m["message"] == nil || !ok || d == "" {
				t.Fatalf("want 400 PGRST100 with details, got %d %.300s", r.status, r.raw)
			}
			if el := time.Since(start); el > 2*time.Second {
				t.Fatalf("refused after %v", el)
			}
		})
	}
	// Within the bounds everything still works.
	for _, q := range []string{
		"law_categories?select=" + nestedEmbeds(8) + "&limit=1",
		"chat_conversations?select=" + path(16),
		"cases?select=id&or=" + nest("or", "id.eq.11111111-1111-4111-8111-111111111111", 15)[2:],
	} {
		if r := e.do("GET", q, a, nil); r.status != 200 {
			t.Fatalf("%s: %d %s", q, r.status, r.raw)
		}
	}
}

// nestedEmbeds is name,law_subcategories(name,law_categories(name,…)) n levels deep, to
// be read from law_categories.
func nestedEmbeds(n int) string {
	sel := "name"
	for i := n; i >= 1; i-- {
		if i%2 == 1 {
			sel = "name,law_subcategories(" + sel + ")"
		} else {
			sel = "name,law_categories(" + sel + ")"
		}
	}
	return sel
}

// Generated statements kept prepared are bounded: long ones (a nested read) run unnamed
// and leave nothing behind, short ones (the app's requests) stay prepared up to a fixed
// number per connection. One prepared statement per distinct text, unbounded, grew a
// backend by hundreds of megabytes.
func TestGeneratedStatementsKeptPreparedAreBounded(t *testing.T) {
	e := setup(t)
	a := e.token("authenticated", userA)
	before := apiBackendMemory(t, e)
	for i := 0; i < 40; i++ {
		r := e.do("GET", fmt.Sprintf("law_categories?select=%s&limit=%d", nestedEmbeds(8), i), a, nil)
		if r.status != 200 {
			t.Fatalf("%d %s", r.status, r.raw)
		}
	}
	after := apiBackendMemory(t, e)
	t.Logf("API backends' anonymous memory: %d kB before, %d kB after 40 distinct nested reads", before, after)
	long, most := preparedOnAPI(t, e)
	if long != 0 {
		t.Fatalf("%d long generated statements kept prepared", long)
	}
	for i := 0; i < 100; i++ {
		if r := e.do("GET", fmt.Sprintf("cases?select=id&limit=%d", i), a, nil); r.status != 200 {
			t.Fatalf("%d %s", r.status, r.raw)
		}
	}
	if _, most = preparedOnAPI(t, e); most > 64+4 { // and the four settings statements
		t.Fatalf("a connection keeps %d prepared statements after 100 distinct short reads", most)
	}
	if most < 10 {
		t.Fatalf("short statements are not kept prepared (%d on the busiest connection)", most)
	}
}

// preparedOnAPI counts the API connections' prepared statements: those over 1 kB in all,
// and the most any one connection holds.
func preparedOnAPI(t *testing.T, e *env) (long, most int) {
	t.Helper()
	ctx := context.Background()
	api := e.srv.Deps.API
	var conns []*pgxpool.Conn
	defer func() {
		for _, c := range conns {
			c.Release()
		}
	}()
	for i := int32(0); i < api.Stat().TotalConns(); i++ {
		c, err := api.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		var all, big int
		if err := c.QueryRow(ctx, `select count(*), count(*) filter (where length(statement) > 1024) from pg_prepared_statements`).Scan(&all, &big); err != nil {
			t.Fatal(err)
		}
		long += big
		most = max(most, all)
	}
	return long, most
}

// A write asking for a single object (Accept: application/vnd.pgrst.object+json, as
// supabase-js .single() sends) that touches other than one row is refused with PGRST116
// and changes nothing, as PostgREST decides inside the transaction.
func TestSingleObjectWritesRollBackUnlessOneRow(t *testing.T) {
	e := setup(t)
	s := e.token("service_role", "")
	e.ddl(`create table public.t_items (id int primary key, grp text not null, note text);
		insert into public.t_items values (1, 'a', null), (2, 'a', null), (3, 'a', null), (4, 'b', null);
		grant all on public.t_items to service_role`, "t_items?select=id", s)
	single := []string{"Accept", "application/vnd.pgrst.object+json"}
	for _, prefer := range []string{"return=representation", "return=minimal"} {
		e.expectErr(e.raw("DELETE", "t_items?grp=eq.a", s, "", append(single, "Prefer", prefer)...), 406, "PGRST116")
		e.expectErr(e.raw("PATCH", "t_items?grp=eq.a", s, `{"note":"x"}`, append(single, "Prefer", prefer)...), 406, "PGRST116")
		e.expectErr(e.raw("PATCH", "t_items?grp=eq.none", s, `{"note":"x"}`, append(single, "Prefer", prefer)...), 406, "PGRST116")
	}
	r := e.do("GET", "t_items?select=id,note&order=id", s, nil)
	if strings.NewReplacer(" ", "", "\n", "").Replace(r.raw) != `[{"id":1,"note":null},{"id":2,"note":null},{"id":3,"note":null},{"id":4,"note":null}]` {
		t.Fatalf("rows changed by refused writes: %s", r.raw)
	}
	// Exactly one row: done, and answered as the object.
	r = e.do("PATCH", "t_items?grp=eq.b", s, map[string]any{"note": "y"}, append(single, "Prefer", "return=representation")...)
	if r.status != 200 || strings.ReplaceAll(r.raw, " ", "") != `{"id":4,"grp":"b","note":"y"}` {
		t.Fatalf("single-row patch: %d %s", r.status, r.raw)
	}
	r = e.do("DELETE", "t_items?id=eq.4", s, nil, append(single, "Prefer", "return=representation")...)
	if r.status != 200 || !strings.Contains(r.raw, `"id":4`) {
		t.Fatalf("single-row delete: %d %s", r.status, r.raw)
	}
	if r := e.do("GET", "t_items?select=id", s, nil, "Prefer", "count=exact"); r.header.Get("Content-Range") != "0-2/3" {
		t.Fatalf("after the single-row delete: %s %s", r.header.Get("Content-Range"), r.raw)
	}
}

// Prefer: count=planned must not give away how many rows a table holds that the caller
// cannot read: under row-level security the count is the caller's own (exact), not the
// planner's estimate of the whole table.
func TestPlannedCountDoesNotRevealHiddenRows(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	if _, err := e.srv.Deps.Owner.Exec(ctx, `
		insert into public.feedback (user_id, body) select null, 'Părere ' || g from generate_series(1, 500) g;
		insert into public.feedback (user_id, body) values ('`+userA+`', 'A mea');
		analyze public.feedback`); err != nil {
		t.Fatal(err)
	}
	a := e.token("authenticated", userA)
	for _, count := range []string{"planned", "estimated"} {
		r := e.do("GET", "feedback?select=id", a, nil, "Prefer", "count="+count)
		if r.status != 200 || r.header.Get("Content-Range") != "0-0/1" {
			t.Fatalf("count=%s as a student: %d %q %s", count, r.status, r.header.Get("Content-Range"), r.raw)
		}
	}
	// Tables without row-level security keep the planner's estimate.
	s := e.token("service_role", "")
	r := e.do("GET", "feedback?select=id&limit=1", s, nil, "Prefer", "count=planned")
	if r.header.Get("Content-Range") == "" || strings.HasSuffix(r.header.Get("Content-Range"), "/*") {
		t.Fatalf("count=planned for service_role: %q", r.header.Get("Content-Range"))
	}
}

// Errors of the database's internals reach the client as a generic PostgREST error
// (the detail goes to the server log), and no error names the generated statement's
// aliases.
func TestInternalErrorsAreGeneric(t *testing.T) {
	e := setup(t)
	a := e.token("authenticated", userA)
	e.ddl(`create function public.t_deep(n int) returns int language plpgsql as $$ begin return public.t_deep(n + 1); end $$;
		grant execute on function public.t_deep(int) to authenticated;
		create view public.t_probe as select 1 as x; grant select on public.t_probe to authenticated`, "t_probe?select=x", a)
	r := e.raw("POST", "rpc/t_deep", a, `{"n":1}`)
	m := e.expectErr(r, 500, "54001")
	for _, leak := range []string{"stack depth", "max_stack_depth", "t_deep"} {
		if strings.Contains(r.raw, leak) {
			t.Fatalf("internal detail %q in the response: %s", leak, r.raw)
		}
	}
	if m["details"] != nil || m["hint"] != nil {
		t.Fatalf("details or hint in a generic error: %s", r.raw)
	}
	// An aggregate beside an embed: PostgreSQL refuses the statement, naming the table,
	// not the statement's alias.
	r = e.raw("GET", "cases?select=count(),case_articles(id)", a, "")
	if r.status < 400 || r.status >= 500 || strings.Contains(r.raw, "_t0") || strings.Contains(r.raw, "_t1") {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	if !strings.Contains(r.raw, "cases") {
		t.Fatalf("the message should name the table: %s", r.raw)
	}
}

// Functions answer under the read rule of cases, EXECUTE revokes hold (PUBLIC no longer
// lends it back), and functions of extensions are not part of the API.
func TestFunctionsFollowTheReadRuleOfCases(t *testing.T) {
	e := setup(t)
	const rejected = "44444444-4444-4444-8444-444444444444"
	if _, err := e.srv.Deps.Owner.Exec(context.Background(), `
		insert into public.cases (id, user_id, case_code, title, level, week_number, domain, verified, rejection_reason, reviewed_by, reviewed_at)
		values ('`+rejected+`', '`+userB+`', 'CIV4ZZZ', 'Caz respins al lui B', 'Mediu', 4, 'civil', false, 'Motivul respingerii', '`+userA+`', now())`); err != nil {
		t.Fatal(err)
	}
	a, b := e.token("authenticated", userA), e.token("authenticated", userB)
	body := `{"p_case_id":"` + rejected + `"}`

	// case_snapshot is an internal helper of the audit: nobody calls it through the API.
	e.expectErr(e.raw("POST", "rpc/case_snapshot", a, body), 403, "42501")
	e.expectErr(e.raw("POST", "rpc/case_snapshot", "", body), 401, "42501")
	// case_used_by_others answers the author (and moderators) only.
	if r := e.do("POST", "rpc/case_used_by_others", a, body); r.status != 200 || r.raw != "null" {
		t.Fatalf("case_used_by_others as another student: %d %s", r.status, r.raw)
	}
	if r := e.do("POST", "rpc/case_used_by_others", b, body); r.status != 200 || r.raw != "false" {
		t.Fatalf("case_used_by_others as the author: %d %s", r.status, r.raw)
	}
	e.expectErr(e.raw("POST", "rpc/case_used_by_others", "", body), 401, "42501")
	// The search copy holds no rejected case, whoever reads it; search finds none.
	if r := e.do("GET", "case_search?select=case_id&case_id=eq."+rejected, a, nil); r.raw != "[]" {
		t.Fatalf("case_search as another student: %s", r.raw)
	}
	if r := e.do("GET", "case_search?select=case_id", a, nil); strings.Count(r.raw, "case_id") != 3 {
		t.Fatalf("case_search lists: %s", r.raw)
	}
	if r := e.do("POST", "rpc/search_cases", a, `{"search_query":"respins"}`); r.raw != "[]" {
		t.Fatalf("search_cases finds the rejected case: %s", r.raw)
	}
	// A case rejected after it was saved leaves the search copy too.
	const draft = "55555555-5555-4555-8555-555555555555"
	if _, err := e.srv.Deps.Owner.Exec(context.Background(), `
		insert into public.cases (id, user_id, case_code, title, level, week_number, domain, verified)
		values ('`+draft+`', '`+userB+`', 'CIV5YYY', 'Ciorna lui B', 'Mediu', 5, 'civil', false)`); err != nil {
		t.Fatal(err)
	}
	if r := e.do("GET", "case_search?select=case_id&case_id=eq."+draft, a, nil); !strings.Contains(r.raw, draft) {
		t.Fatalf("an unreviewed draft is searchable: %s", r.raw)
	}
	if _, err := e.srv.Deps.Owner.Exec(context.Background(), `update public.cases set rejection_reason = 'Nu' where id = '`+draft+`'`); err != nil {
		t.Fatal(err)
	}
	if r := e.do("GET", "case_search?select=case_id&case_id=eq."+draft, b, nil); r.raw != "[]" {
		t.Fatalf("a rejected case stays in the search copy: %s", r.raw)
	}
	// 007 meant the code search for signed-in users only; PUBLIC used to hand it to anon.
	e.expectErr(e.raw("POST", "rpc/search_code_articles", "", `{"p_query":"contract"}`), 401, "42501")
	// Extensions' functions are not in the schema cache.
	for _, fn := range []string{"gen_random_bytes", "crypt", "similarity", "set_limit", "show_trgm", "unaccent"} {
		e.expectErr(e.raw("POST", "rpc/"+fn, a, `{}`), 404, "PGRST202")
	}
}

// apiBackendMemory is the anonymous resident memory of the API's backends in kB, read from
// /proc (-1 when PostgreSQL runs where /proc does not show it).
func apiBackendMemory(t *testing.T, e *env) int64 {
	t.Helper()
	ctx := context.Background()
	api := e.srv.Deps.API
	var conns []*pgxpool.Conn
	defer func() {
		for _, c := range conns {
			c.Release()
		}
	}()
	var total int64
	for i := int32(0); i < max(api.Stat().TotalConns(), 1); i++ {
		c, err := api.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		var pid int
		if err := c.QueryRow(ctx, "select pg_backend_pid()").Scan(&pid); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			return -1
		}
		for _, line := range strings.Split(string(b), "\n") {
			if kb, ok := strings.CutPrefix(line, "RssAnon:"); ok {
				n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")), 10, 64)
				total += n
			}
		}
	}
	return total
}

// Issue 32: a not-found raised by an RPC is 404 (PT404, as PostgREST maps it), a select= of
// thousands of columns is a 400 before PostgreSQL's 500 (54011), and a CHECK violation
// does not echo the row back ("Failing row contains …").
func TestErrorsOfIssue32(t *testing.T) {
	e := setup(t)
	a := e.token("authenticated", userA)
	cols := strings.TrimSuffix(strings.Repeat("id,", 5000), ",")
	e.expectErr(e.do("GET", "cases?select="+cols, a, nil), 400, "PGRST100")
	body := e.expectErr(e.do("POST", "case_submissions", a, map[string]any{"case_id": "11111111-1111-4111-8111-111111111111",
		"submission_text": "text secret al studentului", "difficulty_rating": 2}), 400, "23514")
	if d, _ := body["details"].(string); strings.Contains(d, "Failing row") || strings.Contains(d, "text secret") {
		t.Fatalf("the CHECK violation echoes the row: %v", body)
	}
	e.expectErr(e.do("POST", "rpc/grile_exam_finish", a, map[string]any{"p_exam_id": "11111111-1111-4111-8111-111111111111"}), 404, "PT404")
}
