package domaindb

import (
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/authn"
	"casus/server/internal/db"
)

// anonymousUser is a user of signInAnonymously: an auth user without an e-mail, signed
// in as authenticated with is_anonymous in its token.
func (f *fixture) anonymousUser() string {
	return f.ownerID(`insert into auth.users (aud, role, is_anonymous, created_at) values ('authenticated', 'authenticated', true, now()) returning id`)
}

// tryAnonymous runs one statement (rolled back) with the claims GoTrue gives the user,
// anonymous or not.
func (f *fixture) tryAnonymous(id string, anonymous bool, sql string, args ...any) (int64, error) {
	var n int64
	err := db.AsRole(f.ctx, f.pool, anonClaims(id, anonymous), db.ReadWrite, db.RequestInfo{Method: "POST", Path: "/rest/v1/test"}, func(tx pgx.Tx) error {
		tag, err := tx.Exec(f.ctx, sql, args...)
		if err != nil {
			return err
		}
		n = tag.RowsAffected()
		return errRollback
	})
	if errors.Is(err, errRollback) {
		return n, nil
	}
	return n, err
}

func anonClaims(id string, anonymous bool) *authn.Claims {
	raw := map[string]any{"role": authn.RoleAuthenticated, "sub": id, "is_anonymous": anonymous}
	c := &authn.Claims{Role: authn.RoleAuthenticated, Raw: raw, IsAnonymous: anonymous}
	c.Subject = id
	return c
}

// Anonymous users (the "Încearcă o speță" visitors) read what a student reads but write
// nothing: no submission, conversation, generated case, grade or anything else. The same
// user without the claim (after converting to a permanent account) writes as a student.
func TestAnonymousUsersWriteNothing(t *testing.T) {
	f := newFixture(t)
	anon := who{role: authn.RoleAuthenticated, id: f.anonymousUser()}
	// Reads: the verified case, its articles.
	if n, err := f.tryAnonymous(anon.id, true, `select id from public.cases where id = $1`, f.verified); err != nil || n != 1 {
		t.Fatalf("anonymous read of a verified case: %d %v", n, err)
	}
	writes := []struct {
		name, sql string
		args      []any
	}{
		{"submission", `insert into public.case_submissions (user_id, case_id, submission_text, difficulty_rating, status) values (auth.uid(), $1, 'text', 3, 'submitted')`, []any{f.verified}},
		{"conversation", `insert into public.chat_conversations (user_id, case_id, conversation_data, message_count) values (auth.uid(), $1, '[]', 0)`, []any{f.verified}},
		{"generated case", `select public.save_generated_case($1::jsonb)`, []any{`{"case_code": "CIV5ANO", "title": "T", "legal_problem": "p",
			"case_description": "d", "question": "q", "subcategory": "s", "analysis_steps": ["a"], "hints": ["h"]}`}},
		{"feedback row", `insert into public.feedback (user_id, body) values (auth.uid(), 'x')`, nil},
	}
	for _, w := range writes {
		if _, err := f.tryAnonymous(anon.id, true, w.sql, w.args...); sqlState(err) != "42501" {
			t.Errorf("anonymous %s: want 42501, got %v", w.name, err)
		}
	}
	// Rows the user came to own (made by the owner here) cannot be changed or removed
	// while the token says anonymous.
	conv := f.ownerID(`insert into public.chat_conversations (user_id, case_id, conversation_data, message_count) values ($1, $2, '[]', 0) returning id`, anon.id, f.verified)
	if n, err := f.tryAnonymous(anon.id, true, `update public.chat_conversations set message_count = 5 where id = $1`, conv); err != nil || n != 0 {
		t.Errorf("anonymous update: %d %v", n, err)
	}
	if n, err := f.tryAnonymous(anon.id, true, `delete from public.chat_conversations where id = $1`, conv); err != nil || n != 0 {
		t.Errorf("anonymous delete: %d %v", n, err)
	}
	// Control: the same statements without the claim succeed (a permanent user).
	f.owner(`update auth.users set is_anonymous = false, email = 'fost-anonim@example.ro' where id = $1`, anon.id)
	if n, err := f.tryAnonymous(anon.id, false, writes[0].sql, writes[0].args...); err != nil || n != 1 {
		t.Fatalf("permanent user's submission: %d %v", n, err)
	}
	if n, err := f.tryAnonymous(anon.id, false, `delete from public.chat_conversations where id = $1`, conv); err != nil || n != 1 {
		t.Fatalf("permanent user's delete: %d %v", n, err)
	}
}

// Every table of the app under RLS carries the three restrictive policies, so a table
// added by a later migration without them fails here.
func TestEveryTableRefusesAnonymousWrites(t *testing.T) {
	f := newFixture(t)
	rows, err := f.pool.Query(f.ctx, `select c.relname,
		  (select count(*) from pg_policies p where p.schemaname = 'public' and p.tablename = c.relname
		     and p.permissive = 'RESTRICTIVE' and p.roles @> '{authenticated}' and p.cmd in ('INSERT', 'UPDATE', 'DELETE')
		     and coalesce(p.with_check, p.qual) like '%is_anonymous%')
		from pg_class c join pg_namespace n on n.oid = c.relnamespace
		where n.nspname = 'public' and c.relkind in ('r', 'p') and c.relrowsecurity order by 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	tables := 0
	for rows.Next() {
		var name string
		var n int
		if err := rows.Scan(&name, &n); err != nil {
			t.Fatal(err)
		}
		tables++
		if n != 3 {
			t.Errorf("public.%s has %d of the 3 anonymous-write policies (call public.forbid_anonymous_writes in its migration)", name, n)
		}
	}
	if tables < 10 {
		t.Fatalf("only %d tables under RLS", tables)
	}
}
