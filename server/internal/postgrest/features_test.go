package postgrest_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// ddl runs owner SQL, reloads the schema cache through NOTIFY pgrst and waits until probe
// (a GET path) answers 200.
func (e *env) ddl(sql, probe, bearer string) {
	e.t.Helper()
	if _, err := e.srv.Deps.Owner.Exec(context.Background(), sql+"; notify pgrst, 'reload schema'"); err != nil {
		e.t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for e.raw("GET", probe, bearer, "").status != 200 {
		if time.Now().After(deadline) {
			e.t.Fatalf("schema cache never saw %s", probe)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func codes(t *testing.T, r resp) []string {
	var rows []map[string]any
	if err := json.Unmarshal([]byte(r.raw), &rows); err != nil {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	var out []string
	for _, row := range rows {
		for _, k := range []string{"case_code", "article_reference"} {
			if v, ok := row[k].(string); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

func TestRelatedOrderAndEmbedPresenceInLogic(t *testing.T) {
	e := setup(t)
	a := e.token("authenticated", userA)
	if _, err := e.srv.Deps.Owner.Exec(context.Background(), `insert into public.case_articles (case_id, article_number, article_reference)
		values ('22222222-2222-4222-8222-222222222222', '228', 'Art. 228 C.pen.')`); err != nil {
		t.Fatal(err)
	}
	// Articles ordered by their case's week (PEN2BBB is week 2, CIV1AAA week 1), then number.
	r := e.do("GET", "case_articles?select=article_reference,cases(case_code)&order=cases(week_number).desc.nullslast,article_number", a, nil)
	if got := strings.Join(codes(t, r), " "); got != "Art. 228 C.pen. Art. 1349 C.civ. Art. 1357 C.civ." {
		t.Fatalf("related order desc: %s", r.raw)
	}
	r = e.do("GET", "case_articles?select=article_reference,c:cases(case_code)&order=c(week_number).asc,article_number.desc", a, nil)
	if got := strings.Join(codes(t, r), " "); got != "Art. 1357 C.civ. Art. 1349 C.civ. Art. 228 C.pen." {
		t.Fatalf("related order by alias: %s", r.raw)
	}
	// Inside an embed: each case's articles ordered by a column of their case (all equal), then
	// number, and a spread embed orders too.
	r = e.do("GET", "case_articles?select=article_reference,...cases(case_code)&order=cases(case_code).desc", a, nil)
	if rows := r.json(t).([]any); r.status != 200 || rows[0].(map[string]any)["case_code"] != "PEN2BBB" {
		t.Fatalf("spread related order: %s", r.raw)
	}
	e.expectErr(e.do("GET", "case_articles?select=article_reference&order=cases(week_number)", a, nil), 400, "PGRST108")
	e.expectErr(e.do("GET", "cases?select=case_code,case_articles(id)&order=case_articles(article_number)", a, nil), 400, "PGRST118")
	e.expectErr(e.do("GET", "case_articles?select=id,cases(id)&order=cases(nope)", a, nil), 400, "42703")

	// Embed presence inside or=(): cases with articles, or the constitutional one.
	r = e.do("GET", "cases?select=case_code,case_articles(id)&or=(case_articles.not.is.null,case_code.eq.CON3CCC)&order=case_code", a, nil)
	if got := strings.Join(codes(t, r), " "); got != "CIV1AAA CON3CCC PEN2BBB" {
		t.Fatalf("or with embed presence: %s", r.raw)
	}
	r = e.do("GET", "cases?select=case_code,case_articles(id)&case_articles.article_number=eq.228&or=(case_articles.is.null,level.eq.Ușor)&order=case_code", a, nil)
	if got := strings.Join(codes(t, r), " "); got != "CIV1AAA CON3CCC" {
		t.Fatalf("or with filtered embed absence: %s", r.raw)
	}
	r = e.do("GET", "cases?select=case_code,case_articles(id)&and=(week_number.lte.2,not.or(case_articles.is.null,verified.is.false))&order=case_code", a, nil)
	if got := strings.Join(codes(t, r), " "); got != "CIV1AAA PEN2BBB" {
		t.Fatalf("nested logic with embed presence: %s", r.raw)
	}
	e.expectErr(e.do("GET", "cases?select=case_code,case_articles(id)&or=(case_articles.eq.1,case_code.eq.x)", a, nil), 400, "PGRST120")
	// Without the embed in select, the name is an unknown column.
	e.expectErr(e.do("GET", "cases?select=case_code&or=(case_articles.not.is.null,case_code.eq.x)", a, nil), 400, "42703")
}

func TestPut(t *testing.T) {
	e := setup(t)
	a, b := e.token("authenticated", userA), e.token("authenticated", userB)
	svc := e.srv.Deps.Keys.ServiceKey
	const id = "44444444-4444-4444-8444-444444444444"
	row := `{"id":"` + id + `","case_code":"CIV4PUT","title":"Caz 4: Prima versiune","domain":"civil"}`
	r := e.do("PUT", "cases?id=eq."+id+"&select=case_code,title", svc, row, "Prefer", "return=representation")
	if r.status != 201 || r.raw != `[{"case_code":"CIV4PUT","title":"Caz 4: Prima versiune"}]` || r.header.Get("Preference-Applied") != "return=representation" {
		t.Fatalf("PUT insert: %d %s %v", r.status, r.raw, r.header)
	}
	// The same key again replaces the row: 200 with representation, 204 without.
	row2 := strings.Replace(row, "Prima versiune", "A doua versiune", 1)
	r = e.do("PUT", "cases?id=eq."+strings.ToUpper(id), svc, row2, "Prefer", "return=representation", "Accept", "application/vnd.pgrst.object+json")
	if r.status != 200 || !strings.Contains(r.raw, `"title":"Caz 4: A doua versiune"`) || !strings.HasPrefix(r.raw, "{") {
		t.Fatalf("PUT update: %d %s", r.status, r.raw)
	}
	if r = e.do("PUT", "cases?id=eq."+id, svc, []map[string]any{{"id": id, "case_code": "CIV4PUT", "title": "Caz 4: A treia", "domain": "civil"}}); r.status != 204 || r.raw != "" {
		t.Fatalf("PUT minimal: %d %s", r.status, r.raw)
	}
	if r = e.do("GET", "cases?select=title&id=eq."+id, svc, nil); r.raw != `[{"title":"Caz 4: A treia"}]` {
		t.Fatalf("after PUT: %s", r.raw)
	}
	// PostgREST's errors: filters that are not exactly the key, ranges, a body that disagrees.
	e.expectErr(e.do("PUT", "cases?case_code=eq.CIV4PUT", svc, row), 405, "PGRST105")
	e.expectErr(e.do("PUT", "cases", svc, row), 405, "PGRST105")
	e.expectErr(e.do("PUT", "cases?id=eq."+id+"&case_code=eq.CIV4PUT", svc, row), 405, "PGRST105")
	e.expectErr(e.do("PUT", "cases?id=gte."+id, svc, row), 405, "PGRST105")
	e.expectErr(e.do("PUT", "cases?id=not.eq."+id, svc, row), 405, "PGRST105")
	e.expectErr(e.do("PUT", "cases?id=eq."+id+"&or=(title.eq.x)", svc, row), 405, "PGRST105")
	e.expectErr(e.do("PUT", "cases?id=eq."+id+"&limit=1", svc, row), 400, "PGRST114")
	e.expectErr(e.do("PUT", "cases?id=eq.11111111-1111-4111-8111-111111111111", svc, row), 400, "PGRST115")
	e.expectErr(e.do("PUT", "cases?id=eq."+id, svc, `{"case_code":"CIV4PUT","title":"Caz 4: Fără cheie","domain":"civil"}`), 400, "PGRST115")
	e.expectErr(e.do("PUT", "cases?id=eq."+id, svc, "["+row+","+row2+"]"), 400, "PGRST115")
	e.expectErr(e.do("PUT", "cases?id=eq."+id, svc, "{bad"), 400, "PGRST102")
	if r = e.do("GET", "cases?select=title&id=eq."+id, svc, nil); r.raw != `[{"title":"Caz 4: A treia"}]` {
		t.Fatalf("a rejected PUT changed the row: %s", r.raw)
	}

	// RLS decides both paths: B cannot replace A's note through PUT, A can.
	e.ddl(`create table public.t_notes (id int primary key, owner uuid not null default auth.uid(), body text);
		alter table public.t_notes enable row level security;
		create policy t_notes_own on public.t_notes for all to authenticated using (owner = auth.uid()) with check (owner = auth.uid());
		grant select, insert, update on public.t_notes to authenticated`, "t_notes?select=id", a)
	if r = e.do("PUT", "t_notes?id=eq.1", a, `{"id":1,"body":"nota lui A"}`, "Prefer", "return=representation"); r.status != 201 {
		t.Fatalf("A PUT note: %d %s", r.status, r.raw)
	}
	r = e.do("PUT", "t_notes?id=eq.1", b, `{"id":1,"body":"suprascris de B"}`, "Prefer", "return=representation")
	if r.status != 403 {
		t.Fatalf("B replaced A's note: %d %s", r.status, r.raw)
	}
	if r = e.do("PUT", "t_notes?id=eq.1", a, `{"id":1,"body":"nota nouă"}`, "Prefer", "return=representation"); r.status != 200 || !strings.Contains(r.raw, "nota nouă") {
		t.Fatalf("A PUT update: %d %s", r.status, r.raw)
	}
	if r = e.do("GET", "t_notes?select=body", b, nil); r.raw != "[]" {
		t.Fatalf("B sees A's note: %s", r.raw)
	}
}

func TestPreferenceApplied(t *testing.T) {
	e := setup(t)
	a := e.token("authenticated", userA)
	svc := e.srv.Deps.Keys.ServiceKey
	applied := func(r resp, want string) {
		t.Helper()
		if got := r.header.Get("Preference-Applied"); got != want {
			t.Fatalf("Preference-Applied %q, want %q (%d %s)", got, want, r.status, r.raw)
		}
	}
	applied(e.do("GET", "cases?select=id", a, nil), "")
	applied(e.do("GET", "cases?select=id", a, nil, "Prefer", "count=exact"), "count=exact")
	// The first occurrence wins; a read reports no return=; unknown tokens are ignored.
	applied(e.do("GET", "cases?select=id", a, nil, "Prefer", "return=minimal, count=planned, foo=bar", "Prefer", "count=exact"), "count=planned")
	r := e.do("POST", "cases?on_conflict=case_code&select=case_code", svc, []map[string]any{{"case_code": "CIV1AAA", "title": "Caz 1: Nou", "domain": "civil"}},
		"Prefer", "return=representation,tx=commit,missing=default,resolution=merge-duplicates")
	applied(r, "resolution=merge-duplicates, missing=default, return=representation, tx=commit")
	r = e.do("PATCH", "cases?case_code=eq.CIV1AAA", svc, map[string]any{"week_number": 5}, "Prefer", "max-affected=1, handling=strict, return=minimal")
	if r.status != 204 {
		t.Fatalf("PATCH strict: %d %s", r.status, r.raw)
	}
	applied(r, "return=minimal, handling=strict, max-affected=1")
	// max-affected without handling=strict is not enforced, so not reported.
	applied(e.do("DELETE", "cases?case_code=eq.NOPE", svc, nil, "Prefer", "max-affected=1, tx=rollback"), "tx=rollback")
	applied(e.do("POST", "rpc/search_cases", a, map[string]any{"search_query": "furt"}, "Prefer", "count=exact"), "count=exact")
	// An error answer reports nothing applied.
	r = e.do("GET", "cases?select=id", a, nil, "Prefer", "count=exact", "Accept", "application/vnd.pgrst.object+json")
	e.expectErr(r, 406, "PGRST116")
	applied(r, "")
	applied(e.do("POST", "cases", svc, "[]", "Prefer", "return=representation"), "return=representation")
	// handling=strict rejects preferences it does not know.
	m := e.expectErr(e.do("GET", "cases?select=id", a, nil, "Prefer", "handling=strict, count=exact, return=everything"), 400, "PGRST122")
	if m["details"] != "Invalid preferences: return=everything" {
		t.Fatalf("PGRST122 details: %v", m["details"])
	}
	applied(e.do("GET", "cases?select=id", a, nil, "Prefer", "handling=lenient, return=everything"), "handling=lenient")
}

func TestRaisedErrors(t *testing.T) {
	e := setup(t)
	a := e.token("authenticated", userA)
	e.ddl(`create function public.t_raise(kind text) returns int language plpgsql stable as $$
		begin
		  case kind
		  when 'pgrst' then raise sqlstate 'PGRST' using
		    message = '{"code":"123","message":"Plata este necesară","details":"Cota a fost depășită","hint":"Alege alt plan"}',
		    detail = '{"status":402,"headers":{"X-Powered-By":"Nimic","Retry-After":"30"}}';
		  when 'pgrst-bad-message' then raise sqlstate 'PGRST' using message = 'nu e json', detail = '{"status":402,"headers":{}}';
		  when 'pgrst-no-headers' then raise sqlstate 'PGRST' using message = '{"code":"1","message":"m"}', detail = '{"status":402}';
		  when 'pt' then raise sqlstate 'PT418' using message = 'Sunt un ceainic';
		  when 'plain' then raise exception 'Eroare simplă';
		  when 'no-data' then raise no_data_found using message = 'Nimic';
		  when 'div' then return 1 / 0;
		  else null;
		  end case;
		  return 0;
		end $$;
		grant execute on function public.t_raise(text) to authenticated`, "rpc/t_raise?kind=none", a)
	r := e.raw("GET", "rpc/t_raise?kind=pgrst", a, "")
	if r.status != 402 || strings.TrimSpace(r.raw) != `{"code":"123","details":"Cota a fost depășită","hint":"Alege alt plan","message":"Plata este necesară"}` ||
		r.header.Get("X-Powered-By") != "Nimic" || r.header.Get("Retry-After") != "30" {
		t.Fatalf("PGRST raise: %d %s %v", r.status, r.raw, r.header)
	}
	for kind, want := range map[string]struct {
		status int
		code   string
	}{
		"pgrst-bad-message": {500, "PGRST121"}, "pgrst-no-headers": {500, "PGRST121"},
		"pt": {418, "PT418"}, "plain": {400, "P0001"}, "no-data": {500, "P0002"}, "div": {400, "22012"},
	} {
		r := e.raw("GET", "rpc/t_raise?kind="+kind, a, "")
		var m map[string]any
		_ = json.Unmarshal([]byte(r.raw), &m)
		if r.status != want.status || m["code"] != want.code {
			t.Errorf("%s: want %d %s, got %d %s", kind, want.status, want.code, r.status, r.raw)
		}
	}
}

// Single objects are built by PostgreSQL: a function returning one row answers it as an
// object, and Accept: application/vnd.pgrst.object+json turns a
// one-row read or set-returning call into that object, with nulls stripped on request.
func TestSingleObjectsFromTheStatement(t *testing.T) {
	e := setup(t)
	a := e.token("authenticated", userA)
	e.ddl(`create function public.t_case(code text) returns public.cases language sql stable
		  as $$ select * from public.cases where case_code = code $$;
		create function public.t_cases(codes text[]) returns setof public.cases language sql stable
		  as $$ select * from public.cases where case_code = any(codes) $$;
		grant execute on function public.t_case(text), public.t_cases(text[]) to authenticated`, "rpc/t_case?code=x", a)
	r := e.do("GET", "rpc/t_case?code=PEN2BBB&select=case_code,week_number", a, nil)
	// PostgREST sends a Content-Range with every call's answer, one row included.
	if r.status != 200 || r.raw != `{"case_code":"PEN2BBB","week_number":2}` || r.header.Get("Content-Range") != "0-0/*" {
		t.Fatalf("one-row function: %d %q %v", r.status, r.raw, r.header)
	}
	// A function returning a composite yields one row of nulls when its query finds none.
	if r = e.do("GET", "rpc/t_case?code=NOPE&select=case_code", a, nil); r.status != 200 || r.raw != `{"case_code":null}` {
		t.Fatalf("one-row function without a row: %d %q", r.status, r.raw)
	}
	obj := []string{"Accept", "application/vnd.pgrst.object+json"}
	r = e.do("POST", "rpc/t_cases?select=case_code,subcategory", a, map[string]any{"codes": []string{"CON3CCC"}}, obj...)
	if r.status != 200 || r.raw != `{"case_code":"CON3CCC","subcategory":null}` || r.header.Get("Content-Range") != "0-0/*" {
		t.Fatalf("set-returning function as one object: %d %q %v", r.status, r.raw, r.header)
	}
	r = e.do("POST", "rpc/t_cases?select=case_code", a, map[string]any{"codes": []string{"CON3CCC", "PEN2BBB"}}, obj...)
	e.expectErr(r, 406, "PGRST116")
	// respond decides before writing: the error carries no header of a success.
	if r.header.Get("Content-Range") != "" || r.header.Get("Preference-Applied") != "" {
		t.Fatalf("PGRST116 with success headers: %v", r.header)
	}
	r = e.do("GET", "cases?select=case_code,subcategory&case_code=eq.CON3CCC", a, nil, "Accept", "application/vnd.pgrst.object+json;nulls=stripped")
	if r.status != 200 || r.raw != `{"case_code":"CON3CCC"}` {
		t.Fatalf("stripped single read: %d %q", r.status, r.raw)
	}
}
