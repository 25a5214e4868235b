package postgrest_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"casus/server/internal/authn"
	"casus/server/internal/testutil/testserver"
)

const (
	userA = "aaaaaaaa-0000-4000-8000-000000000001"
	userB = "bbbbbbbb-0000-4000-8000-000000000002"
)

type env struct {
	t   *testing.T
	srv *testserver.Server
}

func setup(t *testing.T) *env {
	srv := testserver.Start(t, nil)
	ctx := context.Background()
	_, err := srv.Deps.Owner.Exec(ctx, `
		insert into auth.users (id, email, aud, role) values ('`+userA+`', 'a@x.ro', 'authenticated', 'authenticated'), ('`+userB+`', 'b@x.ro', 'authenticated', 'authenticated');
		insert into public.cases (id, case_code, title, level, week_number, domain, category, subcategory, verified) values
		  ('11111111-1111-4111-8111-111111111111', 'CIV1AAA', 'Caz 1: Răspunderea civilă delictuală', 'Mediu', 1, 'civil', 'Răspunderea civilă', 'Fapta proprie', true),
		  ('22222222-2222-4222-8222-222222222222', 'PEN2BBB', 'Caz 2: Furtul calificat', 'Dificil', 2, 'penal', 'Furtul', 'Calificat', true),
		  ('33333333-3333-4333-8333-333333333333', 'CON3CCC', 'Caz 3: Controlul constituționalității', 'Ușor', 3, 'constitutional', null, null, false);
		insert into public.case_articles (case_id, article_number, article_reference) values
		  ('11111111-1111-4111-8111-111111111111', '1357', 'Art. 1357 C.civ.'), ('11111111-1111-4111-8111-111111111111', '1349', 'Art. 1349 C.civ.');
		insert into public.case_analysis_steps (case_id, step_number, step_description) values
		  ('11111111-1111-4111-8111-111111111111', 1, 'Identifică fapta'), ('11111111-1111-4111-8111-111111111111', 2, 'Analizează vinovăția');
		insert into public.case_hints (case_id, hint_number, hint_text) values ('11111111-1111-4111-8111-111111111111', 1, 'Gândește-te la art. 1357');`)
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, srv: srv}
}

func (e *env) token(role, sub string) string {
	c := &authn.Claims{Role: role}
	c.Subject = sub
	c.ExpiresAt = jwt.NewNumericDate(time.Now().Add(time.Hour))
	tok, _ := e.srv.Deps.Keys.Sign(c)
	return tok
}

type resp struct {
	status int
	raw    string
	header http.Header
}

func (r resp) json(t *testing.T) any {
	var v any
	if err := json.Unmarshal([]byte(r.raw), &v); err != nil {
		t.Fatalf("not JSON: %s", r.raw)
	}
	return v
}

// do sends a request (a string body as it is, anything else as JSON) and fails the test on
// a 5xx: the API must answer bad input with a PostgREST error, never a server error.
func (e *env) do(method, path, bearer string, body any, hdr ...string) resp {
	e.t.Helper()
	text, ok := body.(string)
	if !ok && body != nil {
		j, _ := json.Marshal(body)
		text = string(j)
	}
	r := e.raw(method, path, bearer, text, hdr...)
	if r.status >= 500 {
		e.t.Fatalf("%s %s: %d %s", method, path, r.status, r.raw)
	}
	return r
}

// raw sends a request and returns it whatever the status.
func (e *env) raw(method, path, bearer, body string, hdr ...string) resp {
	e.t.Helper()
	req, _ := http.NewRequest(method, e.srv.URL+"/rest/v1/"+path, strings.NewReader(body))
	req.Header.Set("apikey", e.srv.Deps.Keys.AnonKey)
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		if strings.EqualFold(hdr[i], "Content-Type") {
			req.Header.Set(hdr[i], hdr[i+1]) // replaces the JSON default
			continue
		}
		req.Header.Add(hdr[i], hdr[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return resp{status: res.StatusCode, raw: string(b), header: res.Header}
}

func (e *env) expectErr(r resp, status int, code string) map[string]any {
	e.t.Helper()
	var m map[string]any
	_ = json.Unmarshal([]byte(r.raw), &m)
	if r.status != status || m["code"] != code || m["message"] == nil {
		e.t.Fatalf("want %d %s, got %d %s", status, code, r.status, r.raw)
	}
	return m
}

func TestReadsLikeTheApp(t *testing.T) {
	e := setup(t)
	a := e.token("authenticated", userA)
	// Select all cases ordered by week then created_at.
	r := e.do("GET", "cases?select=*&order=week_number.asc,created_at.asc", a, nil)
	rows := r.json(t).([]any)
	if r.status != 200 || len(rows) != 3 || rows[0].(map[string]any)["case_code"] != "CIV1AAA" {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	// Case-insensitive level, single object, aliases, casts and JSON paths.
	r = e.do("GET", "cases?select=code:case_code,week:week_number::text&level=ilike.dificil", a, nil, "Accept", "application/vnd.pgrst.object+json")
	if obj := r.json(t).(map[string]any); obj["code"] != "PEN2BBB" || obj["week"] != "2" {
		t.Fatal(r.raw)
	}
	e.expectErr(e.do("GET", "cases?select=id", a, nil, "Accept", "application/vnd.pgrst.object+json"), 406, "PGRST116")
	// A case with its three child tables, ordered inside the embed.
	r = e.do("GET", "cases?select=case_code,case_articles(article_number,article_reference),case_analysis_steps(step_number,step_description),case_hints(*)&id=eq.11111111-1111-4111-8111-111111111111&case_articles.order=article_number", a, nil)
	c := r.json(t).([]any)[0].(map[string]any)
	arts := c["case_articles"].([]any)
	if len(arts) != 2 || arts[0].(map[string]any)["article_number"] != "1349" || len(c["case_analysis_steps"].([]any)) != 2 || len(c["case_hints"].([]any)) != 1 {
		t.Fatal(r.raw)
	}
	// Many-to-one embed as an object, spread, !inner, embedded filter and limit.
	r = e.do("GET", "case_articles?select=article_number,cases(case_code,title)&order=article_number.desc&limit=1", a, nil)
	if obj := r.json(t).([]any)[0].(map[string]any); obj["cases"].(map[string]any)["case_code"] != "CIV1AAA" {
		t.Fatal(r.raw)
	}
	r = e.do("GET", "case_articles?select=article_number,...cases(case_code)&article_number=eq.1357", a, nil)
	if obj := r.json(t).([]any)[0].(map[string]any); obj["case_code"] != "CIV1AAA" {
		t.Fatal(r.raw)
	}
	r = e.do("GET", "cases?select=case_code,case_articles!inner(article_number)&case_articles.article_number=eq.1349", a, nil)
	if rows := r.json(t).([]any); len(rows) != 1 {
		t.Fatal(r.raw)
	}
	r = e.do("GET", "cases?select=case_code,case_articles(article_number)&case_articles.limit=1&case_code=eq.CIV1AAA", a, nil)
	if arts := r.json(t).([]any)[0].(map[string]any)["case_articles"].([]any); len(arts) != 1 {
		t.Fatal(r.raw)
	}
	// Filtering parents by an embed's presence (PostgREST's "<embed>=is.null").
	r = e.do("GET", "cases?select=case_code,case_articles(id)&case_articles=is.null&order=case_code", a, nil)
	if rows := r.json(t).([]any); len(rows) != 2 || rows[0].(map[string]any)["case_code"] != "CON3CCC" {
		t.Fatal(r.raw)
	}
	r = e.do("GET", "cases?select=case_code,case_articles(id)&case_articles.article_number=eq.1349&case_articles=not.is.null", a, nil)
	if rows := r.json(t).([]any); len(rows) != 1 || rows[0].(map[string]any)["case_code"] != "CIV1AAA" {
		t.Fatal(r.raw)
	}
	// Filters and logic trees; count and Content-Range.
	r = e.do("GET", "cases?select=case_code&or=(level.eq.Ușor,and(week_number.gte.2,verified.is.true))&order=case_code", a, nil, "Prefer", "count=exact")
	if rows := r.json(t).([]any); len(rows) != 2 || r.header.Get("Content-Range") != "0-1/2" {
		t.Fatalf("%s %s", r.raw, r.header.Get("Content-Range"))
	}
	// Planned counts come from the planner (a number, not necessarily exact); estimated is
	// exact while the estimate stays under max-rows.
	if _, err := e.srv.Deps.Owner.Exec(context.Background(), "analyze public.cases"); err != nil {
		t.Fatal(err)
	}
	r = e.do("GET", "cases?select=case_code&order=case_code&limit=1", a, nil, "Prefer", "count=planned")
	if !regexp.MustCompile(`^0-0/[0-9]+$`).MatchString(r.header.Get("Content-Range")) {
		t.Fatalf("planned: %q %s", r.header.Get("Content-Range"), r.raw)
	}
	r = e.do("GET", "cases?select=case_code,case_articles(article_number)&verified=is.true&limit=1", a, nil, "Prefer", "count=estimated")
	if r.header.Get("Content-Range") != "0-0/2" {
		t.Fatalf("estimated: %q %s", r.header.Get("Content-Range"), r.raw)
	}
	r = e.do("GET", "cases?select=id&offset=5", a, nil, "Prefer", "count=exact")
	if e.expectErr(r, 416, "PGRST103"); r.header.Get("Content-Range") != "*/3" {
		t.Fatalf("416 Content-Range %q", r.header.Get("Content-Range"))
	}
	r = e.do("GET", "cases?select=id", a, nil, "Range", "1-1", "Prefer", "count=exact")
	if rows := r.json(t).([]any); len(rows) != 1 || r.header.Get("Content-Range") != "1-1/3" {
		t.Fatalf("Range header: %q %s", r.header.Get("Content-Range"), r.raw)
	}
	r = e.do("GET", "cases?select=case_code&case_code=in.(CIV1AAA,\"PEN2BBB\")&title=not.like.*Furt*", a, nil)
	if rows := r.json(t).([]any); len(rows) != 1 {
		t.Fatal(r.raw)
	}
	r = e.do("GET", "cases?select=case_code&category=is.null", a, nil)
	if rows := r.json(t).([]any); len(rows) != 1 {
		t.Fatal(r.raw)
	}
	r = e.do("GET", "cases?select=case_code&order=category.desc.nullsfirst&limit=1&offset=0", a, nil)
	if rows := r.json(t).([]any); rows[0].(map[string]any)["case_code"] != "CON3CCC" {
		t.Fatal(r.raw)
	}
	r = e.do("GET", "cases?select=case_code,title&order=case_code", a, nil, "Accept", "text/csv")
	if !strings.HasPrefix(r.raw, "case_code,title\nCIV1AAA,") {
		t.Fatal(r.raw)
	}
	// Aggregates (PostgREST v12): grouped by the plain columns selected, inside embeds too.
	r = e.do("GET", "cases?select=verified,n:count(),max_week:week_number.max(),avg:week_number.avg()::int&order=verified", a, nil)
	if r.raw != `[{"verified":false,"n":1,"max_week":3,"avg":3}, `+"\n"+` {"verified":true,"n":2,"max_week":2,"avg":2}]` {
		t.Fatalf("aggregates: %d %s", r.status, r.raw)
	}
	r = e.do("GET", "cases?select=case_code,case_articles(count())&case_code=eq.CIV1AAA", a, nil)
	if got := r.json(t).([]any)[0].(map[string]any)["case_articles"].([]any)[0].(map[string]any)["count"]; got != 2.0 {
		t.Fatalf("embedded count: %s", r.raw)
	}
	r = e.do("GET", "cases?select=count()&verified=is.true", a, nil, "Accept", "application/vnd.pgrst.object+json")
	if r.raw != `{"count":2}` {
		t.Fatalf("count single: %s", r.raw)
	}
	e.expectErr(e.do("GET", "cases?select=week_number.median()", a, nil), 400, "PGRST100")
	// RPC: search (set-returning) and a scalar one.
	r = e.do("POST", "rpc/search_cases", a, map[string]any{"search_query": "raspunderea", "max_results": 10})
	if rows, ok := r.json(t).([]any); !ok || len(rows) != 1 {
		t.Fatalf("search: %d %s", r.status, r.raw)
	}
	r = e.do("POST", "rpc/is_username_available", "", map[string]any{"p_username": "ana_pop"})
	if r.raw != "true" {
		t.Fatalf("is_username_available: %s", r.raw)
	}
}

func TestWritesAndRLS(t *testing.T) {
	e := setup(t)
	a, b := e.token("authenticated", userA), e.token("authenticated", userB)
	r := e.do("POST", "case_submissions?select=id,status", a, map[string]any{"case_id": "11111111-1111-4111-8111-111111111111", "submission_text": "Soluția mea", "difficulty_rating": 3},
		"Prefer", "return=representation", "Accept", "application/vnd.pgrst.object+json")
	if r.status != 201 || r.json(t).(map[string]any)["status"] != "submitted" {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	id := r.json(t).(map[string]any)["id"].(string)
	// B sees nothing of A's, through filters, or= tricks or embeds.
	for _, q := range []string{"case_submissions?select=*", "case_submissions?select=*&or=(user_id.eq." + userA + ",id.not.is.null)", "cases?select=case_submissions(*)&case_submissions.user_id=eq." + userA} {
		r := e.do("GET", q, b, nil)
		if strings.Contains(r.raw, id) {
			t.Fatalf("B read A's submission through %s: %s", q, r.raw)
		}
	}
	// Through an RPC too: a SECURITY INVOKER set-returning function, created after start and
	// found through NOTIFY pgrst, runs under the caller's RLS; filters apply to its rows.
	if _, err := e.srv.Deps.Owner.Exec(context.Background(), `
		create function public.t_all_submissions() returns setof public.case_submissions language sql stable
		  as 'select * from public.case_submissions';
		grant execute on function public.t_all_submissions() to authenticated;
		create function public.t_echo(jsonb) returns jsonb language sql immutable as 'select $1';
		create function public.t_add(a int, b int default 1) returns int language sql immutable as 'select a + b';
		create function public.t_nothing() returns void language sql as 'select';
		create function public.t_arrays(tags text[], grid int[] default null) returns text language sql immutable
		  as $f$ select array_to_string(tags, '|') || ';' || coalesce(array_dims(grid) || grid::text, '-') $f$;
		notify pgrst, 'reload schema'`); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		r = e.do("GET", "rpc/t_all_submissions?select=id,user_id&user_id=eq."+userA, a, nil)
		if r.status == 200 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(r.raw, id) {
		t.Fatalf("schema reload or RPC filter: %d %s", r.status, r.raw)
	}
	// A single unnamed jsonb parameter takes the whole body; GET passes named scalars (defaults
	// fill the rest); void answers 204.
	if r := e.do("POST", "rpc/t_echo", a, `{"x":[1,2]}`); r.status != 200 || r.raw != `{"x": [1, 2]}` {
		t.Fatalf("t_echo: %d %s", r.status, r.raw)
	}
	if r := e.do("GET", "rpc/t_add?a=40&b=2", a, nil); r.raw != "42" {
		t.Fatalf("t_add: %d %s", r.status, r.raw)
	}
	if r := e.do("POST", "rpc/t_add", a, map[string]any{"a": 41}); r.raw != "42" {
		t.Fatalf("t_add default: %d %s", r.status, r.raw)
	}
	e.expectErr(e.do("POST", "rpc/t_add", a, map[string]any{"a": "x"}), 400, "22P02")
	// Array parameters take JSON arrays, as PostgREST reads them (nested ones as
	// multidimensional arrays); a PostgreSQL array literal in a string still works.
	if r := e.do("POST", "rpc/t_arrays", a, `{"tags":["a","b,c"],"grid":[[1,2],[3,4]]}`); r.raw != `"a|b,c;[1:2][1:2]{{1,2},{3,4}}"` {
		t.Fatalf("t_arrays: %d %s", r.status, r.raw)
	}
	if r := e.do("POST", "rpc/t_arrays", a, `{"tags":"{x,y}"}`); r.raw != `"x|y;-"` {
		t.Fatalf("t_arrays literal: %d %s", r.status, r.raw)
	}
	e.expectErr(e.do("GET", "rpc/t_nothing", a, nil), 405, "PGRST101")
	if r := e.do("POST", "rpc/t_nothing", a, nil); r.status != 204 {
		t.Fatalf("t_nothing: %d %s", r.status, r.raw)
	}
	for _, q := range []string{"rpc/t_all_submissions", "rpc/t_all_submissions?user_id=eq." + userA, "rpc/t_all_submissions?or=(id.eq." + id + ",user_id.not.is.null)"} {
		if r := e.do("GET", q, b, nil); r.status != 200 || r.raw != "[]" {
			t.Fatalf("B through %s: %d %s", q, r.status, r.raw)
		}
	}
	// B cannot change or delete it; A cannot forge a score.
	if r := e.do("PATCH", "case_submissions?id=eq."+id, b, map[string]any{"submission_text": "x"}, "Prefer", "return=representation"); r.raw != "[]" {
		t.Fatalf("B updated: %s", r.raw)
	}
	// Nobody deletes submissions: the table grants no DELETE at all.
	e.expectErr(e.do("DELETE", "case_submissions?id=eq."+id, b, nil, "Prefer", "return=representation"), 403, "42501")
	if r := e.do("GET", "case_submissions?select=id", a, nil); !strings.Contains(r.raw, id) {
		t.Fatal("A's submission is gone")
	}
	r = e.do("PATCH", "case_submissions?id=eq."+id, a, map[string]any{"score": "100/100", "score_value": 100, "status": "graded"})
	if r.status != 401 && r.status != 403 {
		t.Fatalf("score forged: %d %s", r.status, r.raw)
	}
	// Anonymous callers read no cases.
	// Anonymous callers have no grant on cases: PostgREST's 401 for an anonymous 42501.
	e.expectErr(e.do("GET", "cases?select=id", "", nil), 401, "42501")
	// Duplicate case code → 23505 / 409 (the generator shows its message on it).
	r = e.do("POST", "cases", e.srv.Deps.Keys.ServiceKey, map[string]any{"case_code": "CIV1AAA", "title": "Caz 9: Dublură", "domain": "civil"})
	e.expectErr(r, 409, "23505")
	// Upsert, tx=rollback, max-affected.
	svc := e.srv.Deps.Keys.ServiceKey
	r = e.do("POST", "cases?on_conflict=case_code", svc, []map[string]any{{"case_code": "CIV1AAA", "title": "Caz 1: Titlu nou", "domain": "civil"}},
		"Prefer", "resolution=merge-duplicates,return=representation")
	if r.status != 200 || !strings.Contains(r.raw, "Titlu nou") { // only updated: 200, as PostgREST
		t.Fatalf("upsert: %d %s", r.status, r.raw)
	}
	// missing=default: a key one object leaves out takes the column default (level 'Mediu',
	// week 1), where without it differing keys are PostgREST's PGRST102.
	bulk := []map[string]any{{"case_code": "CIV7DEF", "title": "Caz 7: A", "domain": "civil", "level": "Dificil", "week_number": 7}, {"case_code": "CIV8DEF", "title": "Caz 8: B", "domain": "civil"}}
	e.expectErr(e.do("POST", "cases", svc, bulk), 400, "PGRST102")
	r = e.do("POST", "cases?select=case_code,level,week_number", svc, bulk, "Prefer", "missing=default,return=representation")
	if r.status != 201 || !strings.Contains(r.raw, `{"case_code":"CIV8DEF","level":"Mediu","week_number":1}`) || !strings.Contains(r.raw, `"level":"Dificil","week_number":7`) {
		t.Fatalf("missing=default: %d %s", r.status, r.raw)
	}
	if r = e.do("POST", "cases", svc, "[]", "Prefer", "return=representation"); r.status != 201 || r.raw != "[]" {
		t.Fatalf("empty bulk insert: %d %s", r.status, r.raw)
	}
	r = e.do("DELETE", "cases?case_code=eq.PEN2BBB", svc, nil, "Prefer", "tx=rollback")
	if r.status != 204 || e.do("GET", "cases?select=id&case_code=eq.PEN2BBB", svc, nil).raw == "[]" {
		t.Fatal("tx=rollback was committed")
	}
	e.expectErr(e.do("PATCH", "cases?verified=eq.true", svc, map[string]any{"week_number": 4}, "Prefer", "max-affected=1,handling=strict"), 400, "PGRST124")
}

func TestBadInput(t *testing.T) {
	e := setup(t)
	a := e.token("authenticated", userA)
	e.expectErr(e.do("GET", "nope", a, nil), 404, "PGRST205")
	e.expectErr(e.do("GET", "cases?select=nope", a, nil), 400, "42703")
	e.expectErr(e.do("GET", "cases?nope=eq.1", a, nil), 400, "42703")
	e.expectErr(e.do("GET", "cases?week_number=zz.1", a, nil), 400, "PGRST100")
	e.expectErr(e.do("GET", "cases?week_number=eq.abc", a, nil), 400, "22P02")
	e.expectErr(e.do("GET", "cases?select=id,(", a, nil), 400, "PGRST100")
	e.expectErr(e.do("GET", "cases?or=(week_number.eq.1", a, nil), 400, "PGRST100")
	e.expectErr(e.do("GET", "cases?select=*,nope(*)", a, nil), 400, "PGRST200")
	e.expectErr(e.do("GET", "cases?limit=-1", a, nil), 400, "PGRST102")
	e.expectErr(e.do("GET", "cases?order=title.sideways", a, nil), 400, "PGRST100")
	e.expectErr(e.do("POST", "case_submissions", a, "{bad json"), 400, "PGRST102")
	e.expectErr(e.do("POST", "case_submissions", a, map[string]any{"nope": 1}), 400, "PGRST204")
	e.expectErr(e.do("POST", "case_submissions", a, map[string]any{"case_id": "11111111-1111-4111-8111-111111111111", "submission_text": "x", "difficulty_rating": 2}), 400, "23514")
	e.expectErr(e.do("POST", "case_submissions", a, strings.Repeat(" ", 2<<20)), 413, "PGRST102")
	e.expectErr(e.do("POST", "rpc/nope", a, map[string]any{}), 404, "PGRST202")
	e.expectErr(e.do("POST", "rpc/search_cases", a, map[string]any{"wrong": 1}), 404, "PGRST202")
	e.expectErr(e.do("POST", "rpc/update_user_role", a, map[string]any{"p_user_id": userB, "p_new_role": "admin"}), 403, "42501")
	e.expectErr(e.do("GET", "cases", "", nil, "Accept-Profile", "auth"), 406, "PGRST106")
	e.expectErr(e.do("GET", "cases", a, nil, "Accept", "application/xml"), 406, "PGRST107")
	if r := e.do("GET", "cases?select=id&limit=1", a, nil, "Accept", "text/html;q=0.9, application/json"); r.status != 200 {
		t.Fatalf("Accept list: %d %s", r.status, r.raw)
	}
	// Tokens: none, forged, expired, alg none.
	req, _ := http.NewRequest("GET", e.srv.URL+"/rest/v1/cases", nil)
	res, _ := http.DefaultClient.Do(req)
	if res.StatusCode != 401 {
		t.Fatalf("no apikey: %d", res.StatusCode)
	}
	forged, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"role": "service_role", "exp": time.Now().Add(time.Hour).Unix()}).SignedString([]byte("some-other-secret-some-other-secret"))
	e.expectErr(e.do("GET", "cases", forged, nil), 401, "PGRST301")
	none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{"role": "service_role", "exp": time.Now().Add(time.Hour).Unix()}).SignedString(jwt.UnsafeAllowNoneSignatureType)
	e.expectErr(e.do("GET", "cases", none, nil), 401, "PGRST301")
	expired := &authn.Claims{Role: "authenticated"}
	expired.ExpiresAt = jwt.NewNumericDate(time.Now().Add(-time.Hour))
	tok, _ := e.srv.Deps.Keys.Sign(expired)
	e.expectErr(e.do("GET", "cases", tok, nil), 401, "PGRST303")
	superTok := &authn.Claims{Role: "postgres"}
	superTok.ExpiresAt = jwt.NewNumericDate(time.Now().Add(time.Hour))
	st, _ := e.srv.Deps.Keys.Sign(superTok)
	e.expectErr(e.do("GET", "cases", st, nil), 401, "PGRST301")
}
