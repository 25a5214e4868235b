package domaindb

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// The review queue (migration 011): only moderators and admins list, edit, verify and
// reject generated cases, whatever a student sends to the RPCs; each change leaves an
// audit row; the author sees the outcome.
func TestReviewRPCs(t *testing.T) {
	f := newFixture(t)
	call := func(w who, sql string, args ...any) error {
		return f.as(w, func(tx pgx.Tx) error {
			rows, err := tx.Query(f.ctx, sql, args...)
			if err != nil {
				return err
			}
			rows.Close()
			return rows.Err()
		})
	}
	audits := func(action string) int {
		return f.ownerInt(`select count(*) from public.case_audit where case_id = $1 and action = $2`, f.generated, action)
	}
	state := func() (verified bool, reason *string) {
		if err := f.pool.QueryRow(f.ctx, `select verified, rejection_reason from public.cases where id = $1`, f.generated).Scan(&verified, &reason); err != nil {
			t.Fatal(err)
		}
		return
	}

	// The queue: moderators and admins only; the generated case is in it, the curriculum is not.
	for _, w := range []who{f.a, f.b} {
		err := call(w, `select * from public.review_queue()`)
		mustState(t, err, "42501")
		if !strings.Contains(err.Error(), "only moderators and administrators") {
			t.Errorf("unclear message: %v", err)
		}
	}
	mustState(t, call(f.anon, `select * from public.review_queue()`), "42501")
	for _, w := range []who{f.mod, f.admin} {
		var codes, author string
		if err := f.scalar(w, &codes, `select string_agg(case_code, ',') from public.review_queue()`); err != nil || codes != "PEN2BBB" {
			t.Fatalf("%s queue: %q %v", w.name, codes, err)
		}
		if err := f.scalar(w, &author, `select author_username from public.review_queue()`); err != nil || author != "student_a" {
			t.Fatalf("%s author: %q %v", w.name, author, err)
		}
	}

	// Students (the author included) cannot verify, reject or edit by calling the RPCs.
	edit := `{"case_code": "PEN2BBB", "title": "Titlu nou", "legal_problem": "Problema", "case_description": "Descriere nouă",
		"question": "Întrebare?", "level": "usor", "week_number": 3, "subcategory": "",
		"articles": [{"article_number": "228", "article_reference": "Art. 228 C.pen."}],
		"analysis_steps": ["Al doilea pas devine primul", "Primul pas"], "hints": ["Un indiciu"]}`
	for _, w := range []who{f.a, f.b, f.anon} {
		if w.role != "anon" {
			mustState(t, call(w, `select public.review_verify_case($1)`, f.generated), "42501")
			mustState(t, call(w, `select public.review_reject_case($1, 'nu')`, f.generated), "42501")
			mustState(t, call(w, `select public.review_update_case($1, $2::jsonb)`, f.generated, edit), "42501")
		} else {
			mustState(t, call(w, `select public.review_verify_case($1)`, f.generated), "42501")
		}
		// Nor can they write the review columns or the audit table directly.
		if _, err := f.try(w, `update public.cases set rejection_reason = 'x' where id = $1`, f.generated); err == nil {
			t.Errorf("%s wrote rejection_reason", w.name)
		}
		if _, err := f.try(w, `insert into public.case_audit (case_id, action) values ($1, 'verify')`, f.generated); err == nil {
			t.Errorf("%s wrote the audit", w.name)
		}
	}
	if v, r := state(); v || r != nil {
		t.Fatalf("a student changed the case: %v %v", v, r)
	}
	if n := f.ownerInt(`select count(*) from public.case_audit`); n != 0 {
		t.Fatalf("%d audit rows after refused calls", n)
	}
	// Students do not read the audit.
	if n, err := f.try(f.a, `select * from public.case_audit`); err != nil || n != 0 {
		t.Fatalf("A reads the audit: %d %v", n, err)
	}

	// A moderator edits: validation as on save, with the same messages.
	err := call(f.mod, `select public.review_update_case($1, $2::jsonb)`, f.generated, `{"case_code": "PEN2BBB", "title": " ", "analysis_steps": [], "hints": ["x"]}`)
	mustState(t, err, "23514")
	if !strings.Contains(err.Error(), "Titlul este obligatoriu. Problema juridică este obligatorie. Descrierea cazului este obligatorie. Întrebarea este obligatorie. Cel puțin un pas de analiză cu conținut este obligatoriu") {
		t.Errorf("message: %v", err)
	}
	mustState(t, call(f.mod, `select public.review_update_case($1, $2::jsonb)`, f.generated, strings.Replace(strings.Replace(edit, "PEN2BBB", "CIV1AAA", 1), `"subcategory": ""`, `"subcategory": "Fapta proprie"`, 1)), "23505")
	if err := call(f.mod, `select public.review_update_case($1, $2::jsonb)`, f.generated, edit); err != nil {
		t.Fatal(err)
	}
	var title, level, steps, hints, arts string
	var week int
	if err := f.pool.QueryRow(f.ctx, `select title, level, week_number from public.cases where id = $1`, f.generated).Scan(&title, &level, &week); err != nil {
		t.Fatal(err)
	}
	f.pool.QueryRow(f.ctx, `select string_agg(step_number || '=' || step_description, ';' order by step_number) from public.case_analysis_steps where case_id = $1`, f.generated).Scan(&steps)
	f.pool.QueryRow(f.ctx, `select string_agg(hint_number || '=' || hint_text, ';' order by hint_number) from public.case_hints where case_id = $1`, f.generated).Scan(&hints)
	f.pool.QueryRow(f.ctx, `select string_agg(article_reference, ';') from public.case_articles where case_id = $1`, f.generated).Scan(&arts)
	if title != "Titlu nou" || level != "Ușor" || week != 3 || steps != "1=Al doilea pas devine primul;2=Primul pas" || hints != "1=Un indiciu" || arts != "Art. 228 C.pen." {
		t.Fatalf("after edit: %q %q %d steps %q hints %q articles %q", title, level, week, steps, hints, arts)
	}
	// One consolidated audit row, holding only what changed, by the moderator.
	if n := audits("edit"); n != 1 {
		t.Fatalf("edit audit rows: %d", n)
	}
	if n := f.ownerInt(`select count(*) from public.case_audit where action <> 'edit'`); n != 0 {
		t.Fatalf("row-level audit rows during an RPC edit: %d", n)
	}
	var actor, oldTitle, newTitle string
	var hasQuestion bool
	if err := f.pool.QueryRow(f.ctx, `select actor_id, old_values ->> 'title', new_values ->> 'title', new_values ? 'question'
		from public.case_audit where case_id = $1 and action = 'edit'`, f.generated).Scan(&actor, &oldTitle, &newTitle, &hasQuestion); err != nil {
		t.Fatal(err)
	}
	if actor != f.mod.id || oldTitle != "Furt calificat în timpul nopții" || newTitle != "Titlu nou" || !hasQuestion {
		t.Fatalf("edit audit: %s %q → %q question %v", actor, oldTitle, newTitle, hasQuestion)
	}

	// Reject needs a reason; the author then sees it, and the case leaves the queue.
	mustState(t, call(f.mod, `select public.review_reject_case($1, '  ')`, f.generated), "22023")
	if err := call(f.mod, `select public.review_reject_case($1, 'Faptele nu susțin întrebarea.')`, f.generated); err != nil {
		t.Fatal(err)
	}
	var status, reason string
	if err := f.as(f.a, func(tx pgx.Tx) error {
		return tx.QueryRow(f.ctx, `select status, rejection_reason from public.my_generated_cases() where id = $1`, f.generated).Scan(&status, &reason)
	}); err != nil || status != "rejected" || reason != "Faptele nu susțin întrebarea." {
		t.Fatalf("author sees %q %q %v", status, reason, err)
	}
	var n int
	if err := f.scalar(f.mod, &n, `select count(*) from public.review_queue()`); err != nil || n != 0 {
		t.Fatalf("queue after reject: %d %v", n, err)
	}
	if audits("reject") != 1 {
		t.Fatal("no reject audit")
	}
	// The rejected case leaves other students' sidebar, search and direct reads; its author
	// and moderators still read it.
	for _, w := range []who{f.b, f.a, f.mod} {
		var seen int
		if err := f.scalar(w, &seen, `select count(*) from public.cases where id = $1`, f.generated); err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{true: 0, false: 1}[w.id == f.b.id]; seen != want {
			t.Errorf("%s sees the rejected case %d times, want %d", w.name, seen, want)
		}
	}
	if err := f.scalar(f.b, &n, `select count(*) from public.search_cases('PEN2BBB', 10)`); err != nil || n != 0 {
		t.Errorf("B's search finds the rejected case: %d %v", n, err)
	}
	// B sees nothing of A's in their own list.
	if err := f.scalar(f.b, &n, `select count(*) from public.my_generated_cases()`); err != nil || n != 0 {
		t.Fatalf("B's list: %d %v", n, err)
	}

	// An admin verifies: the rejection is cleared; verifying again is a no-op; rejecting a
	// verified case or editing it through the review path is refused.
	if err := call(f.admin, `select public.review_verify_case($1)`, f.generated); err != nil {
		t.Fatal(err)
	}
	if v, r := state(); !v || r != nil {
		t.Fatalf("after verify: %v %v", v, r)
	}
	if err := call(f.admin, `select public.review_verify_case($1)`, f.generated); err != nil {
		t.Fatal(err)
	}
	if audits("verify") != 1 {
		t.Fatalf("verify audit rows: %d", audits("verify"))
	}
	mustState(t, call(f.mod, `select public.review_reject_case($1, 'prea târziu')`, f.generated), "22023")
	mustState(t, call(f.mod, `select public.review_update_case($1, $2::jsonb)`, f.generated, edit), "22023")
	mustState(t, call(f.mod, `select public.review_verify_case('00000000-0000-0000-0000-000000000000')`), "PT404")
	if err := f.as(f.a, func(tx pgx.Tx) error {
		return tx.QueryRow(f.ctx, `select status from public.my_generated_cases() where id = $1`, f.generated).Scan(&status)
	}); err != nil || status != "verified" {
		t.Fatalf("author sees %q %v", status, err)
	}
	var by string
	if err := f.pool.QueryRow(f.ctx, `select actor_id from public.case_audit where case_id = $1 and action = 'verify'`, f.generated).Scan(&by); err != nil || by != f.admin.id {
		t.Fatalf("verify by %q %v", by, err)
	}
	// Moderators read the audit.
	if n, err := f.try(f.mod, `select * from public.case_audit`); err != nil || n != 3 {
		t.Fatalf("moderator reads %d audit rows, %v", n, err)
	}
}

// Changes outside the review RPCs (a moderator's direct /rest/v1 update) are recorded too,
// while an author saving their own draft is not review and leaves no audit row.
func TestDirectEditsAreAudited(t *testing.T) {
	f := newFixture(t)
	err := f.as(f.mod, func(tx pgx.Tx) error {
		if _, err := tx.Exec(f.ctx, `update public.cases set title = 'Titlu direct' where id = $1`, f.generated); err != nil {
			return err
		}
		_, err := tx.Exec(f.ctx, `update public.case_hints set hint_text = 'Indiciu schimbat' where case_id = $1`, f.generated)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var entity, oldV, newV string
	var keys int
	if err := f.pool.QueryRow(f.ctx, `select entity, old_values ->> 'title', new_values ->> 'title', (select count(*) from jsonb_object_keys(new_values))
		from public.case_audit where case_id = $1 and action = 'update' and entity = 'case'`, f.generated).Scan(&entity, &oldV, &newV, &keys); err != nil {
		t.Fatal(err)
	}
	if oldV != "Furt calificat în timpul nopții" || newV != "Titlu direct" || keys != 1 {
		t.Fatalf("case audit: %q → %q (%d keys)", oldV, newV, keys)
	}
	if n := f.ownerInt(`select count(*) from public.case_audit where case_id = $1 and entity = 'hint' and actor_id = $2`, f.generated, f.mod.id); n != 1 {
		t.Fatalf("hint audit rows: %d", n)
	}
	before := f.ownerInt(`select count(*) from public.case_audit`)
	var id string
	if err := f.scalar(f.b, &id, `select public.save_generated_case($1::jsonb)`, `{"case_code": "CIV5XYZ", "title": "T", "legal_problem": "p",
		"case_description": "d", "question": "q", "subcategory": "s", "analysis_steps": ["a"], "hints": ["h"]}`); err != nil {
		t.Fatal(err)
	}
	if after := f.ownerInt(`select count(*) from public.case_audit`); after != before {
		t.Fatalf("saving a draft wrote %d audit rows", after-before)
	}
}
