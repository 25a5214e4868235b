package domaindb

import (
	"fmt"
	"testing"
)

// deny is the expectation "the statement fails with insufficient_privilege (42501)": no
// grant, a column without privilege, or a row that violates an RLS check.
const deny = -1

// invalid is "the statement fails for another reason" (a constraint, a read-only view),
// used where the caller has the privilege but the row itself cannot exist.
const invalid = -2

// cell is one table × operation, with what each caller gets: rows seen or affected, or deny.
type cell struct {
	name string
	sql  string
	args func(f *fixture) []any
	want map[string]int // keys: anon A B moderator admin service
}

func none(*fixture) []any { return nil }

var seq int

func all(n int) map[string]int {
	return map[string]int{"anon": n, "A": n, "B": n, "moderator": n, "admin": n, "service": n}
}

func with(m map[string]int, kv ...any) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1].(int)
	}
	return out
}

// TestRLSMatrix runs every table and view × select/insert/update/delete as anon, students A
// and B, a moderator, an admin and service_role, each cell in its own rolled-back transaction.
func TestRLSMatrix(t *testing.T) {
	f := newFixture(t)
	a := func(f *fixture) []any { return []any{f.a.id} }
	b := func(f *fixture) []any { return []any{f.b.id} }
	ver := func(f *fixture) []any { return []any{f.verified} }
	gen := func(f *fixture) []any { return []any{f.generated} }
	cells := []cell{
		// universities: public reference data.
		{"universities select", `select * from public.universities`, none, with(all(31))},
		{"universities insert", `insert into public.universities values ('X', 'X', 'Other', 99)`, none, with(all(deny), "service", 1)},
		{"universities update", `update public.universities set name = 'X' where code = 'UB'`, none, with(all(deny), "service", 1)},
		{"universities delete", `delete from public.universities where code = 'UBV'`, none, with(all(deny), "service", 1)},

		// user_profiles: own row; admins all; nobody writes directly (not even admins).
		{"profiles select", `select * from public.user_profiles`, none, with(all(1), "anon", deny, "admin", 4, "service", 4)},
		{"profiles select other", `select * from public.user_profiles where id = $1`, b, with(all(0), "anon", deny, "B", 1, "admin", 1, "service", 1)},
		{"profiles insert", `insert into public.user_profiles (id, email, name, username) values ($1, 'x@y.ro', 'Xx', 'someone')`,
			func(f *fixture) []any { seq++; return []any{f.authUser(fmt.Sprintf("p%d@example.ro", seq), 0)} }, with(all(deny), "service", 1)},
		{"profiles promote oneself", `update public.user_profiles set role = 'admin' where id = auth.uid()`, none, with(all(deny), "service", 0)},
		{"profiles promote A", `update public.user_profiles set role = 'admin' where id = $1`, a, with(all(deny), "service", 1)},
		{"profiles delete", `delete from public.user_profiles where id = $1`, b, with(all(deny), "service", 1)},

		// cases: signed-in read; insert own unverified; moderators update; authors delete own unverified.
		{"cases select", `select * from public.cases`, none, with(all(2), "anon", deny)},
		{"cases insert own unverified", `insert into public.cases (case_code, title, domain) values ('CIV3NEW', 'Nou', 'civil')`, none,
			with(all(1), "anon", deny)},
		{"cases insert verified", `insert into public.cases (case_code, title, verified) values ('CIV3VER', 'Verificat', true)`, none,
			with(all(deny), "service", 1)},
		{"cases insert for another user", `insert into public.cases (user_id, case_code, title) values ($1, 'CIV3OTH', 'Altul')`, b,
			with(all(deny), "B", 1, "service", 1)},
		{"cases verify", `update public.cases set verified = true where id = $1`, gen, with(all(0), "anon", deny, "moderator", 1, "admin", 1, "service", 1)},
		{"cases edit own", `update public.cases set title = 'Schimbat' where id = $1`, gen, with(all(0), "anon", deny, "moderator", 1, "admin", 1, "service", 1)},
		{"cases change author", `update public.cases set user_id = $1 where id = $1`, b, with(all(deny), "service", 0)},
		{"cases delete own unverified", `delete from public.cases where id = $1`, gen, with(all(0), "anon", deny, "A", 1, "moderator", 1, "admin", 1, "service", 1)},
		// The curriculum case has A's and B's submissions: in use, nobody deletes it (015).
		{"cases delete curriculum", `delete from public.cases where id = $1`, ver, with(all(0), "anon", deny, "moderator", invalid, "admin", invalid, "service", invalid)},

		{"case_search select", `select * from public.case_search`, none, with(all(2), "anon", deny)},
		{"case_search insert", `insert into public.case_search values (gen_random_uuid(), 'x', 'x')`, none, with(all(deny), "service", invalid)},
		{"case_search update", `update public.case_search set title_fold = 'x'`, none, with(all(deny), "service", 2)},
		{"case_search delete", `delete from public.case_search`, none, with(all(deny), "service", 2)},

		// children of cases: author of an unverified case and moderators write.
		{"articles select", `select * from public.case_articles`, none, with(all(2), "anon", deny)},
		{"articles insert curriculum", `insert into public.case_articles (case_id, article_number, article_reference) values ($1, '1', 'Art. 1 C.civ.')`, ver,
			with(all(deny), "moderator", 1, "admin", 1, "service", 1)},
		{"articles insert own generated", `insert into public.case_articles (case_id, article_number, article_reference) values ($1, '1', 'Art. 1 C.pen.')`, gen,
			with(all(deny), "A", 1, "moderator", 1, "admin", 1, "service", 1)},
		{"articles update", `update public.case_articles set article_reference = 'x' where case_id = $1`, ver, with(all(0), "anon", deny, "moderator", 1, "admin", 1, "service", 1)},
		{"articles delete", `delete from public.case_articles where case_id = $1`, ver, with(all(0), "anon", deny, "moderator", 1, "admin", 1, "service", 1)},
		{"steps select", `select * from public.case_analysis_steps`, none, with(all(4), "anon", deny)},
		{"steps insert curriculum", `insert into public.case_analysis_steps (case_id, step_number, step_description) values ($1, 9, 'x')`, ver,
			with(all(deny), "moderator", 1, "admin", 1, "service", 1)},
		{"steps insert own generated", `insert into public.case_analysis_steps (case_id, step_number, step_description) values ($1, 9, 'x')`, gen,
			with(all(deny), "A", 1, "moderator", 1, "admin", 1, "service", 1)},
		{"steps renumber", `update public.case_analysis_steps set step_number = 3 - step_number where case_id = $1`, ver,
			with(all(0), "anon", deny, "moderator", 2, "admin", 2, "service", 2)},
		{"steps delete", `delete from public.case_analysis_steps where case_id = $1`, ver, with(all(0), "anon", deny, "moderator", 2, "admin", 2, "service", 2)},
		{"hints select", `select * from public.case_hints`, none, with(all(2), "anon", deny)},
		{"hints insert curriculum", `insert into public.case_hints (case_id, hint_number, hint_text) values ($1, 9, 'x')`, ver,
			with(all(deny), "moderator", 1, "admin", 1, "service", 1)},
		{"hints insert own generated", `insert into public.case_hints (case_id, hint_number, hint_text) values ($1, 9, 'x')`, gen,
			with(all(deny), "A", 1, "moderator", 1, "admin", 1, "service", 1)},
		{"hints update", `update public.case_hints set hint_text = 'x' where case_id = $1`, ver, with(all(0), "anon", deny, "moderator", 1, "admin", 1, "service", 1)},
		{"hints delete", `delete from public.case_hints where case_id = $1`, ver, with(all(0), "anon", deny, "moderator", 1, "admin", 1, "service", 1)},

		// submissions: owner only; grading columns never from the API's user roles.
		{"submissions select", `select * from public.case_submissions`, none, with(all(0), "anon", deny, "A", 1, "B", 1, "service", 2)},
		{"submissions read B's", `select * from public.case_submissions where user_id = $1`, b, with(all(0), "anon", deny, "B", 1, "service", 1)},
		{"submissions insert own", `insert into public.case_submissions (user_id, case_id, submission_text, difficulty_rating, status) values (auth.uid(), $1, 'text', 5, 'submitted')`, ver,
			with(all(1), "anon", deny, "service", invalid /* no user id: not null */)},
		{"submissions insert for B", `insert into public.case_submissions (user_id, case_id, submission_text) values ($1, $2, 'text')`,
			func(f *fixture) []any { return []any{f.b.id, f.verified} }, with(all(deny), "B", 1, "service", 1)},
		{"submissions forge score on insert", `insert into public.case_submissions (user_id, case_id, submission_text, score, score_value, status) values (auth.uid(), $1, 't', '100/100', 100, 'graded')`, ver,
			with(all(deny), "service", invalid /* no user id */)},
		{"submissions insert graded status", `insert into public.case_submissions (user_id, case_id, submission_text, status) values (auth.uid(), $1, 't', 'graded')`, ver,
			with(all(deny), "service", invalid)},
		{"submissions forge score", `update public.case_submissions set score = '100/100', score_value = 100, status = 'graded', feedback_at = now() where user_id = $1`, a,
			with(all(deny), "service", 1)},
		{"submissions forge feedback", `update public.case_submissions set feedback_text = 'Excelent' where user_id = $1`, a, with(all(deny), "service", 1)},
		{"submissions edit text", `update public.case_submissions set submission_text = 'nou' where user_id = $1`, a,
			with(all(0), "anon", deny, "A", 1, "service", 1)},
		{"submissions delete", `delete from public.case_submissions where user_id = $1`, a, with(all(deny), "service", 1)},
		{"completions select", `select * from public.case_completions`, none, with(all(0), "anon", deny)},
		{"completions insert", `insert into public.case_completions (user_id, case_id, completed_at) values ($1, $2, now())`,
			func(f *fixture) []any { return []any{f.a.id, f.verified} }, with(all(deny), "service", 1)},

		// conversations: owner only.
		{"conversations select", `select * from public.chat_conversations`, none, with(all(0), "anon", deny, "A", 1, "B", 1, "service", 2)},
		{"conversations read B's", `select * from public.chat_conversations where user_id = $1`, b, with(all(0), "anon", deny, "B", 1, "service", 1)},
		{"conversations insert own", `insert into public.chat_conversations (user_id, case_id, conversation_data, message_count) values (auth.uid(), $1, '[]', 0)`, ver,
			with(all(1), "anon", deny, "service", invalid)},
		{"conversations insert for B", `insert into public.chat_conversations (user_id, conversation_data) values ($1, '[]')`, b,
			with(all(deny), "B", 1, "service", 1)},
		{"conversations update B's", `update public.chat_conversations set message_count = 9 where user_id = $1`, b,
			with(all(0), "anon", deny, "B", 1, "service", 1)},
		{"conversations delete B's", `delete from public.chat_conversations where user_id = $1`, b, with(all(0), "anon", deny, "B", 1, "service", 1)},

		// feedback: anyone inserts under their own identity; own read; admins read all.
		{"feedback select", `select * from public.feedback`, none, with(all(0), "anon", deny, "A", 1, "B", 1, "admin", 3, "service", 3)},
		{"feedback insert anonymous", `insert into public.feedback (email, body) values ('x@example.ro', 'salut')`, none,
			with(all(deny), "anon", 1, "service", 1)},
		{"feedback insert signed in", `insert into public.feedback (user_id, body) values (auth.uid(), 'salut')`, none,
			with(all(1), "anon", 1, "service", 1)},
		{"feedback insert as A", `insert into public.feedback (user_id, body) values ($1, 'salut')`, a, with(all(deny), "A", 1, "service", 1)},
		{"feedback update", `update public.feedback set body = 'x'`, none, with(all(deny), "service", 3)},
		{"feedback delete", `delete from public.feedback`, none, with(all(deny), "service", 3)},

		// views.
		{"submissions_with_details", `select * from public.submissions_with_details`, none, with(all(0), "anon", deny, "A", 1, "B", 1, "service", 2)},
		{"case_progress", `select * from public.case_progress`, none, with(all(0), "anon", deny, "A", 1, "B", 1, "service", 2)},
		{"public_profiles", `select username from public.public_profiles`, none, with(all(4), "anon", deny)},
		{"public_profiles hides e-mail", `select email from public.public_profiles`, none, all(invalid)},
		{"views are read-only", `delete from public.submissions_with_details`, none, all(invalid)},

		// leaderboard (016): only through the RPCs, signed-in users only; the first-correct
		// grile table and the ranking helper (it holds user ids) are not for any API role.
		{"leaderboard_grile_points select", `select * from public.leaderboard_grile_points`, none, with(all(deny), "service", 0)},
		{"leaderboard_grile_points insert", `insert into public.leaderboard_grile_points (user_id, question_id, earned_at) values ($1, gen_random_uuid(), now())`, a,
			with(all(deny), "service", invalid /* no such question */)},
		{"leaderboard_grile_points update", `update public.leaderboard_grile_points set earned_at = now()`, none, with(all(deny), "service", 0)},
		{"leaderboard_grile_points delete", `delete from public.leaderboard_grile_points`, none, with(all(deny), "service", 0)},
		{"profiles opt out directly", `update public.user_profiles set hide_from_leaderboards = true where id = auth.uid()`, none, with(all(deny), "service", 0)},
		{"set_leaderboard_hidden", `select public.set_leaderboard_hidden(true)`, none, with(all(1), "anon", deny, "service", deny)},
		// The fixture's submissions are ungraded: nobody has points; "Poziția ta" is the caller alone.
		{"leaderboard_top", `select * from public.leaderboard_top('all', 'global', 100)`, none, with(all(0), "anon", deny, "service", deny)},
		{"leaderboard_around_me", `select * from public.leaderboard_around_me('week', 'university')`, none, with(all(1), "anon", deny, "service", deny)},
		{"leaderboard_ranking helper", `select * from public.leaderboard_ranking('-infinity', false, null, null)`, none, all(deny)},
		{"leaderboard_since helper", `select public.leaderboard_since('week')`, none, all(deny)},
	}
	callers := []who{f.anon, f.a, f.b, f.mod, f.admin, f.svc}
	for _, c := range cells {
		for _, w := range callers {
			want, ok := c.want[w.name]
			if !ok {
				t.Fatalf("%s: no expectation for %s", c.name, w.name)
			}
			n, err := f.try(w, c.sql, c.args(f)...)
			switch {
			case want < 0 && err == nil:
				t.Errorf("%s as %s: allowed (%d rows), want denied", c.name, w.name, n)
			case want == deny && sqlState(err) != "42501":
				t.Errorf("%s as %s: %v, want a permission error (42501)", c.name, w.name, err)
			case want == deny:
			case want == invalid && (err == nil || sqlState(err) == "42501"):
				t.Errorf("%s as %s: %v, want a non-permission error", c.name, w.name, err)
			case want == invalid:
			case err != nil:
				t.Errorf("%s as %s: %v, want %d rows", c.name, w.name, err, want)
			case int(n) != want:
				t.Errorf("%s as %s: %d rows, want %d", c.name, w.name, n, want)
			}
		}
	}
}
