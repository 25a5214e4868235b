package domaindb

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Seminars (issue 30, sql/app 026): groups, join codes, assignments, grades of record,
// and the rule that staff see only members' work on the group's assignments.

// seminar is a group owned by the fixture's moderator, with A as a member.
type seminar struct {
	*fixture
	group string
	code  string
}

func newSeminar(t *testing.T) *seminar {
	f := newFixture(t)
	s := &seminar{fixture: f}
	s.group = s.str(f.mod, `select id from public.seminar_create_group('Grupa 101', 'UB', '2025-2026', 1)`)
	s.code = s.str(f.mod, `select code from public.seminar_join_codes where group_id = $1 and retired_at is null`, s.group)
	return s
}

// str runs a one-value query as w and fails the test on error.
func (s *seminar) str(w who, sql string, args ...any) string {
	s.t.Helper()
	var v string
	if err := s.scalar(w, &v, sql, args...); err != nil {
		s.t.Fatalf("%s: %s: %v", w.name, sql, err)
	}
	return v
}

func (s *seminar) join(w who, code string) error {
	return s.as(w, func(tx pgx.Tx) error {
		rows, err := tx.Query(s.ctx, `select * from public.seminar_join($1)`, code)
		if err != nil {
			return err
		}
		n := 0
		for rows.Next() {
			n++
		}
		rows.Close()
		if rows.Err() == nil && n != 1 {
			return errors.New("no row: unknown code")
		}
		return rows.Err()
	})
}

func (s *seminar) mustJoin(w who) {
	s.t.Helper()
	if err := s.join(w, s.code); err != nil {
		s.t.Fatalf("%s joins: %v", w.name, err)
	}
}

// assignment creates a case assignment on the verified case, due in a day.
func (s *seminar) assignment(extra string) string {
	s.t.Helper()
	return s.str(s.mod, `select id from public.seminar_create_assignment(p_group_id => $1, p_kind => 'case', p_case_id => $2,
		p_deadline => (now() + interval '1 day')::text`+extra+`)`, s.group, s.verified)
}

func (s *seminar) submit(w who, assignment, text string) (string, error) {
	var id string
	err := s.scalar(w, &id, `insert into public.case_submissions (case_id, submission_text, difficulty_rating, assignment_id, user_id)
		values ($1, $2, 1, $3, $4) returning id`, s.verified, text, assignment, w.id)
	return id, err
}

// grade records an AI grade on a submission as the gateway does.
func (s *seminar) grade(sub string, score int) {
	s.t.Helper()
	breakdown := `[{"id":"1.1","label":"Citirea enunțului","score":4,"max":5,"comment":"bine"},
		{"id":"2.1","label":"Identificarea problemelor","score":` + itoa(score-4) + `,"max":95,"comment":"parțial"}]`
	s.owner(`update public.case_submissions set status = 'graded', score = $2 || '/100', score_value = $2::numeric,
		feedback_text = 'ok', feedback_at = now(), score_breakdown = $3::jsonb where id = $1`, sub, itoa(score), breakdown)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func mustMsg(t *testing.T, err error, state, msg string) {
	t.Helper()
	mustState(t, err, state)
	var pg *pgconn.PgError
	if errors.As(err, &pg) && !strings.Contains(pg.Message, msg) {
		t.Fatalf("want message containing %q, got %q", msg, pg.Message)
	}
}

func (s *seminar) count(w who, sql string, args ...any) int64 {
	s.t.Helper()
	n, err := s.try(w, sql, args...)
	if err != nil {
		s.t.Fatalf("%s: %s: %v", w.name, sql, err)
	}
	return n
}

func TestSeminarGroupsAndCodes(t *testing.T) {
	s := newSeminar(t)
	// Only teaching staff create groups; bad input is refused in Romanian.
	mustMsg(t, s.exec(s.a, `select public.seminar_create_group('Grupa A', 'UB', '2025-2026', 1)`), "42501", "Doar cadrele didactice")
	mustMsg(t, s.exec(s.mod, `select public.seminar_create_group('G', 'UB', '2025-2026', 1)`), "22023", "Numele grupei")
	mustMsg(t, s.exec(s.mod, `select public.seminar_create_group('Grupa X', 'NU', '2025-2026', 1)`), "22023", "Alege facultatea")
	mustMsg(t, s.exec(s.mod, `select public.seminar_create_group('Grupa X', 'UB', '2025-2027', 1)`), "22023", "Anul universitar")
	mustMsg(t, s.exec(s.mod, `select public.seminar_create_group('Grupa X', 'UB', '2025-2026', 3)`), "22023", "Semestrul")
	if err := s.exec(s.admin, `select public.seminar_create_group('Grupa admin', 'UBB', '2025-2026', 2)`); err != nil {
		t.Fatalf("admin creates a group: %v", err)
	}
	if len(s.code) != 8 || strings.ContainsAny(s.code, "01ILO") {
		t.Fatalf("code %q", s.code)
	}

	// Preview says what joining means; an unknown code is no row.
	var staff string
	if err := s.scalar(s.a, &staff, `select staff::text from public.seminar_preview($1)`, strings.ToLower(s.code[:4])+"-"+s.code[4:]); err != nil {
		t.Fatalf("preview (lower case, dash): %v", err)
	}
	if !strings.Contains(staff, `"moderator1"`) {
		t.Fatalf("preview staff: %s", staff)
	}
	if n := s.count(s.a, `select * from public.seminar_preview('ZZZZZZZZ')`); n != 0 {
		t.Fatalf("unknown code previewed %d rows", n)
	}
	// Students see nothing of a group before joining.
	if n := s.count(s.a, `select * from public.seminar_groups`); n != 0 {
		t.Fatalf("A sees %d groups before joining", n)
	}

	s.mustJoin(s.a)
	mustMsg(t, s.join(s.a, s.code), "23505", "Ești deja membru")
	mustMsg(t, s.join(s.mod, s.code), "22023", "Faci parte din echipa")
	if n := s.count(s.a, `select * from public.seminar_groups`); n != 1 {
		t.Fatalf("A sees %d groups after joining", n)
	}
	// Codes are the staff's.
	if n := s.count(s.a, `select * from public.seminar_join_codes`); n != 0 {
		t.Fatalf("A reads %d codes", n)
	}
	mustState(t, s.exec(s.a, `select public.seminar_rotate_code($1)`, s.group), "PT404")

	// A rotated code says so; an expired one too.
	old := s.code
	s.code = s.str(s.mod, `select code from public.seminar_rotate_code($1)`, s.group)
	mustMsg(t, s.join(s.b, old), "22023", "Codul a fost înlocuit")
	s.owner(`update public.seminar_join_codes set expires_at = now() - interval '1 minute' where code = $1`, s.code)
	mustMsg(t, s.join(s.b, s.code), "22023", "Codul a expirat")
	mustMsg(t, s.exec(s.mod, `select public.seminar_rotate_code($1, '2020-01-01T10:00')`, s.group), "22023", "în viitor")
	s.code = s.str(s.mod, `select code from public.seminar_rotate_code($1, (now() + interval '7 days')::text)`, s.group)
	s.mustJoin(s.b)

	// Leaving, removal, and coming back only with a newer code.
	if err := s.exec(s.b, `select public.seminar_leave($1)`, s.group); err != nil {
		t.Fatal(err)
	}
	mustMsg(t, s.exec(s.b, `select public.seminar_leave($1)`, s.group), "PT404", "Nu ești membru")
	s.mustJoin(s.b)
	mustState(t, s.exec(s.a, `select public.seminar_remove_member($1, $2)`, s.group, s.b.id), "PT404")
	if err := s.exec(s.mod, `select public.seminar_remove_member($1, $2)`, s.group, s.b.id); err != nil {
		t.Fatal(err)
	}
	mustMsg(t, s.join(s.b, s.code), "42501", "te-a scos")
	s.code = s.str(s.mod, `select code from public.seminar_rotate_code($1)`, s.group)
	s.mustJoin(s.b)
	if n := s.ownerInt(`select count(*) from public.seminar_members where group_id = $1 and user_id = $2`, s.group, s.b.id); n != 3 {
		t.Fatalf("B's membership periods: %d", n)
	}

	// Co-teachers: moderators by username, added by the owner only.
	mod2 := s.user("mod2@example.ro", "asistent_doi", "moderator")
	mod2.name = "mod2"
	mustMsg(t, s.exec(s.mod, `select public.seminar_add_teacher($1, 'nimeni_aici')`, s.group), "PT404", "Nu există niciun utilizator")
	mustMsg(t, s.exec(s.mod, `select public.seminar_add_teacher($1, 'student_a')`, s.group), "22023", "nu este cadru didactic")
	if err := s.exec(s.mod, `select public.seminar_add_teacher($1, '@Asistent_Doi')`, s.group); err != nil {
		t.Fatal(err)
	}
	mustMsg(t, s.exec(s.mod, `select public.seminar_add_teacher($1, 'asistent_doi')`, s.group), "23505", "face deja parte")
	mustMsg(t, s.exec(mod2, `select public.seminar_add_teacher($1, 'admin1')`, s.group), "42501", "Doar titularul")
	mustMsg(t, s.exec(s.mod, `select public.seminar_remove_teacher($1, $2)`, s.group, s.mod.id), "22023", "Titularul")
	var people int
	if err := s.scalar(mod2, &people, `select count(*) from public.seminar_people($1)`, s.group); err != nil || people != 4 {
		t.Fatalf("co-teacher lists %d people: %v", people, err)
	}
	if err := s.scalar(s.a, &people, `select count(*) from public.seminar_people($1)`, s.group); err != nil || people != 2 {
		t.Fatalf("a member lists %d people (want the 2 staff): %v", people, err)
	}
	// Nobody writes the tables directly.
	for _, w := range []who{s.a, s.mod, s.admin} {
		if _, err := s.try(w, `insert into public.seminar_members (group_id, user_id) values ($1, $2)`, s.group, w.id); err == nil {
			t.Errorf("%s inserted a membership directly", w.name)
		}
		if _, err := s.try(w, `update public.seminar_members set left_at = now()`); err == nil {
			t.Errorf("%s updated memberships directly", w.name)
		}
	}
}

// Wrong codes are limited: 20 an hour per caller, then 429 (the misses are committed, so
// the RPCs answer no row rather than an error that would roll the count back).
func TestSeminarCodeGuessingIsLimited(t *testing.T) {
	s := newSeminar(t)
	for range 20 {
		if n := s.count(s.a, `select * from public.seminar_preview('ZZZZZZZZ')`); n != 0 {
			t.Fatal("unknown code found")
		}
		if err := s.exec(s.a, `select * from public.seminar_join('YYYYYYYY')`); err != nil {
			t.Fatal(err)
		}
		if n := s.ownerInt(`select count(*) from casus_meta.seminar_code_misses where user_id = $1`, s.a.id); n >= 20 {
			break
		}
	}
	err := s.exec(s.a, `select * from public.seminar_preview($1)`, s.code)
	mustState(t, err, "PGRST")
	var pg *pgconn.PgError
	if errors.As(err, &pg) && (!strings.Contains(pg.Message, "Prea multe coduri greșite") || !strings.Contains(pg.Detail, "429")) {
		t.Fatalf("limit error: %q %q", pg.Message, pg.Detail)
	}
	// Another student is not affected.
	if n := s.count(s.b, `select * from public.seminar_preview($1)`, s.code); n != 1 {
		t.Fatalf("B previews: %d", n)
	}
}

func TestSeminarAssignmentErrors(t *testing.T) {
	s := newSeminar(t)
	create := func(w who, caseID, deadline string, extra string) error {
		return s.exec(w, `select public.seminar_create_assignment(p_group_id => $1, p_kind => 'case', p_case_id => $2, p_deadline => $3`+extra+`)`,
			s.group, caseID, deadline)
	}
	mustMsg(t, create(s.mod, s.verified, "2020-03-14T18:00", ""), "22023", "Termenul-limită este în trecut")
	mustMsg(t, create(s.mod, s.verified, "mâine", ""), "22023", "nu este validă")
	mustMsg(t, create(s.mod, s.verified, "2999-03-14T18:00", ", p_opens_at => '2999-03-15T18:00'"), "22023", "după deschiderea")
	mustMsg(t, create(s.mod, s.verified, "2999-03-14T18:00", ", p_strictness => 2"), "22023", "Exigența")
	mustMsg(t, create(s.mod, s.verified, "2999-03-14T18:00", ", p_late_policy => 'maybe'"), "22023", "Politica")
	// A rejected case, someone else's unverified case; a student, another moderator.
	rejected := s.ownerID(`insert into public.cases (user_id, case_code, title, legal_problem, case_description, question, verified, rejection_reason)
		values ($1, 'CIV9REJ', 'Caz respins', 'p', 'd', 'q', false, 'Greșit') returning id`, s.mod.id)
	mustMsg(t, create(s.mod, rejected, "2999-03-14T18:00", ""), "22023", "respins la verificare")
	mustMsg(t, create(s.mod, s.generated, "2999-03-14T18:00", ""), "22023", "generat de tine")
	mustMsg(t, create(s.mod, "00000000-0000-0000-0000-000000000000", "2999-03-14T18:00", ""), "PT404", "Cazul nu există")
	mustState(t, create(s.a, s.verified, "2999-03-14T18:00", ""), "PT404")
	mustState(t, create(s.admin, s.verified, "2999-03-14T18:00", ""), "PT404")
	// The deadline a datetime-local sends is Bucharest time.
	id := s.str(s.mod, `select id from public.seminar_create_assignment(p_group_id => $1, p_kind => 'case', p_case_id => $2, p_deadline => '2999-07-01T18:00')`, s.group, s.verified)
	if got := s.str(s.mod, `select to_char(deadline at time zone 'UTC', 'HH24:MI') from public.seminar_assignments where id = $1`, id); got != "15:00" {
		t.Fatalf("deadline 18:00 in Bucharest (summer) is %s UTC", got)
	}
	// Grile: chosen or drawn, never both.
	qs := s.moreGrile(3)
	mustMsg(t, s.exec(s.mod, `select public.seminar_create_assignment(p_group_id => $1, p_kind => 'grile', p_deadline => '2999-01-01T10:00', p_grile_minutes => 20)`, s.group), "22023", "Alege grilele")
	mustMsg(t, s.exec(s.mod, `select public.seminar_create_assignment(p_group_id => $1, p_kind => 'grile', p_deadline => '2999-01-01T10:00', p_grile_minutes => 20, p_grile_count => 50, p_grile_categories => '{c9}')`, s.group), "22023", "În categoriile alese sunt doar")
	if err := s.exec(s.mod, `select public.seminar_create_assignment(p_group_id => $1, p_kind => 'grile', p_deadline => '2999-01-01T10:00', p_grile_minutes => 20, p_grile_question_ids => $2)`, s.group, qs); err != nil {
		t.Fatal(err)
	}
}

// The heart: staff see only members' work on the group's assignments submitted while
// they were members; students only their own; co-teachers added later see the history.
func TestSeminarStaffSeeOnlyMembersAssignmentWork(t *testing.T) {
	s := newSeminar(t)
	other := s.user("mod3@example.ro", "alt_asistent", "moderator")
	other.name = "other group's staff"
	s.str(other, `select id from public.seminar_create_group('Grupa 202', 'UB', '2025-2026', 1)`)

	// A's work before joining and outside assignments stays private.
	s.mustJoin(s.a)
	asg := s.assignment("")
	subA, err := s.submit(s.a, asg, "soluția A pentru temă")
	if err != nil {
		t.Fatal(err)
	}
	// B, not a member, cannot hand work in for the assignment.
	_, err = s.submit(s.b, asg, "soluția B")
	mustMsg(t, err, "42501", "Nu ești membru")

	visible := func(w who) int64 {
		return s.count(w, `select * from public.case_submissions where user_id in ($1, $2)`, s.a.id, s.b.id)
	}
	if n := visible(s.mod); n != 1 {
		t.Fatalf("staff see %d submissions, want A's assignment work only", n)
	}
	if n := s.count(s.mod, `select * from public.case_submissions where id = $1`, subA); n != 1 {
		t.Fatal("staff do not see A's assignment work")
	}
	for _, w := range []who{other, s.admin} {
		if n := s.count(w, `select * from public.case_submissions where id = $1`, subA); n != 0 {
			t.Fatalf("%s sees A's assignment work", w.name)
		}
	}
	if n := visible(s.b); n != 1 {
		t.Fatalf("B sees %d submissions, want own only", n)
	}
	if n := visible(s.a); n != 2 {
		t.Fatalf("A sees %d submissions, want own two", n)
	}

	// A co-teacher added later sees the group's history.
	mod2 := s.user("mod2@example.ro", "asistent_doi", "moderator")
	if n := s.count(mod2, `select * from public.case_submissions where id = $1`, subA); n != 0 {
		t.Fatal("a moderator outside the group sees A's work")
	}
	if err := s.exec(s.mod, `select public.seminar_add_teacher($1, 'asistent_doi')`, s.group); err != nil {
		t.Fatal(err)
	}
	if n := s.count(mod2, `select * from public.case_submissions where id = $1`, subA); n != 1 {
		t.Fatal("the co-teacher added later does not see A's earlier work")
	}

	// Removed: no more work for the assignment, and work dated after the removal is
	// invisible to staff (the rule, whatever wrote the row).
	if err := s.exec(s.mod, `select public.seminar_remove_member($1, $2)`, s.group, s.a.id); err != nil {
		t.Fatal(err)
	}
	_, err = s.submit(s.a, asg, "după eliminare")
	mustMsg(t, err, "42501", "Nu ești membru")
	if n := s.count(s.mod, `select * from public.case_submissions where id = $1`, subA); n != 1 {
		t.Fatal("work from before the removal must stay visible")
	}
	s.owner(`update public.case_submissions set submitted_at = now() + interval '1 minute' where id = $1`, subA)
	for _, w := range []who{s.mod, mod2} {
		if n := s.count(w, `select * from public.case_submissions where id = $1`, subA); n != 0 {
			t.Fatalf("%s sees work dated after the removal", w.name)
		}
		var rows int
		if err := s.scalar(w, &rows, `select count(*) from public.seminar_gradebook($1) where submission_id is not null`, s.group); err != nil || rows != 0 {
			t.Fatalf("%s gradebook shows %d submissions after removal: %v", w.name, rows, err)
		}
	}
	if n := s.count(s.a, `select * from public.case_submissions where id = $1`, subA); n != 1 {
		t.Fatal("A lost sight of own work")
	}
}

// Deadlines and the rest of the assignment's settings, on the way in.
func TestSeminarDeadlinesAndSettings(t *testing.T) {
	s := newSeminar(t)
	s.mustJoin(s.a)
	s.mustJoin(s.b)
	accept := s.assignment(", p_strictness => 5, p_revisions_allowed => 1")
	refuse := s.assignment(", p_late_policy => 'refuse'")
	later := s.str(s.mod, `select id from public.seminar_create_assignment(p_group_id => $1, p_kind => 'case', p_case_id => $2,
		p_opens_at => (now() + interval '1 day')::text, p_deadline => (now() + interval '2 days')::text)`, s.group, s.verified)

	// Not open yet: refused, and the student does not see it.
	_, err := s.submit(s.a, later, "prea devreme")
	mustMsg(t, err, "22023", "Tema se deschide pe")
	if n := s.count(s.a, `select * from public.seminar_assignments where id = $1`, later); n != 0 {
		t.Fatal("A sees an assignment before it opens")
	}

	// On time: the assignment's strictness, not the client's; not late.
	sub, err := s.submit(s.a, accept, "la timp")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.str(s.a, `select difficulty_rating || ' ' || late from public.case_submissions where id = $1`, sub); got != "5 false" {
		t.Fatalf("strictness and late: %s", got)
	}
	mustState(t, s.exec(s.a, `update public.case_submissions set late = true where id = $1`, sub), "42501")

	// The deadline passes mid-submission: accepted and marked late, or refused with a
	// clear error and nothing stored.
	s.owner(`update public.seminar_assignments set deadline = now() - interval '1 second', opens_at = now() - interval '1 day' where id in ($1, $2)`, accept, refuse)
	sub2, err := s.submit(s.b, accept, "întârziată")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.str(s.b, `select late::text from public.case_submissions where id = $1`, sub2); got != "true" {
		t.Fatalf("late mark: %s", got)
	}
	_, err = s.submit(s.b, refuse, "prea târziu")
	mustMsg(t, err, "22023", "Termenul temei a trecut")
	var pg *pgconn.PgError
	if errors.As(err, &pg) && pg.Hint != "seminar_deadline_passed" {
		t.Fatalf("hint %q", pg.Hint)
	}
	if n := s.ownerInt(`select count(*) from public.case_submissions where assignment_id = $1`, refuse); n != 0 {
		t.Fatalf("%d refused submissions stored", n)
	}
	// Editing the text after the deadline marks an accepted submission late.
	if err := s.exec(s.a, `update public.case_submissions set submission_text = 'editată după termen' where id = $1`, sub); err != nil {
		t.Fatal(err)
	}
	if got := s.str(s.a, `select late::text from public.case_submissions where id = $1`, sub); got != "true" {
		t.Fatalf("edited late: %s", got)
	}

	// Submissions that count: the first and revisions_allowed more.
	s.grade(sub, 60)
	if _, err := s.submit(s.a, accept, "revizuire"); err != nil {
		t.Fatalf("first revision: %v", err)
	}
	_, err = s.submit(s.a, accept, "a doua revizuire")
	mustMsg(t, err, "22023", "Ai folosit toate cele 1 revizuiri")
	// A case-less or wrong-case submission cannot claim the assignment.
	err = s.exec(s.b, `insert into public.case_submissions (case_id, submission_text, assignment_id) values ($1, 'alt caz', $2)`, s.generated, accept)
	mustMsg(t, err, "22023", "nu este pentru cazul")
}

func TestSeminarGradesOfRecord(t *testing.T) {
	s := newSeminar(t)
	s.mustJoin(s.a)
	s.mustJoin(s.b)
	mod2 := s.user("mod2@example.ro", "asistent_doi", "moderator")
	asg := s.assignment("")
	sub, err := s.submit(s.a, asg, "soluția A")
	if err != nil {
		t.Fatal(err)
	}
	mustMsg(t, s.exec(s.mod, `select public.seminar_confirm_grade($1)`, sub), "22023", "nu a fost încă evaluată")
	s.grade(sub, 70)

	// Nobody but the group's staff grades: students, other moderators, admins.
	for _, w := range []who{s.a, s.b, mod2, s.admin} {
		mustState(t, s.exec(w, `select public.seminar_confirm_grade($1)`, sub), "PT404")
		mustState(t, s.exec(w, `select public.seminar_set_grade($1, '[{"id":"1.1","score":5}]')`, sub), "PT404")
		if _, err := s.try(w, `insert into public.seminar_grades (submission_id, assignment_id, student_id, source, criteria, score)
			values ($1, $2, $3, 'staff', '[]', 100)`, sub, asg, s.a.id); err == nil {
			t.Errorf("%s inserted a grade directly", w.name)
		}
	}

	if err := s.exec(s.mod, `select public.seminar_confirm_grade($1, 'Bine argumentat.')`, sub); err != nil {
		t.Fatal(err)
	}
	// Corrections per criterion, validated.
	mustMsg(t, s.exec(s.mod, `select public.seminar_set_grade($1, '[{"id":"9.9","score":1}]')`, sub), "22023", "Criteriul „9.9” nu există")
	mustMsg(t, s.exec(s.mod, `select public.seminar_set_grade($1, '[{"id":"1.1","score":6}]')`, sub), "22023", "între 0 și 5")
	mustMsg(t, s.exec(s.mod, `select public.seminar_set_grade($1, '[{"id":"1.1","score":2.3}]')`, sub), "22023", "pași de 0,5")
	var score string
	if err := s.scalar(s.mod, &score, `select score::text from public.seminar_set_grade($1, '[{"id":"2.1","score":50.5,"comment":"Lipsește art. 1357."}]', 'Revezi analiza.')`, sub); err != nil {
		t.Fatal(err)
	}
	if score != "54.50" {
		t.Fatalf("grade of record %s, want 4 + 50.5", score)
	}
	// Both grades kept; the student and the staff read it, B does not; the student is told.
	var got string
	if err := s.scalar(s.a, &got, `select g.score || '|' || g.ai_score || '|' || g.source || '|' || g.comment || '|' || (g.criteria -> 1 ->> 'ai_score')
		from public.seminar_grades g where submission_id = $1`, sub); err != nil {
		t.Fatal(err)
	}
	if got != "54.50|70.00|staff|Revezi analiza.|66" {
		t.Fatalf("student reads %q", got)
	}
	if n := s.count(s.b, `select * from public.seminar_grades`); n != 0 {
		t.Fatal("B reads A's grade")
	}
	if n := s.count(s.a, `select * from public.seminar_notifications where kind = 'grade_confirmed'`); n != 2 {
		t.Fatalf("A has %d grade notifications", n)
	}
	// Students cannot change it through the API.
	if _, err := s.try(s.a, `update public.seminar_grades set score = 100 where submission_id = $1`, sub); err == nil {
		t.Fatal("the student changed the grade of record")
	}

	// Every change audited, append-only, read by staff only.
	if n := s.ownerInt(`select count(*) from public.seminar_grade_audit where submission_id = $1`, sub); n != 2 {
		t.Fatalf("%d audit rows, want 2", n)
	}
	if got := s.str(s.mod, `select string_agg(action || ':' || (actor_id = $2)::text, ',' order by id) from public.seminar_grade_audit where submission_id = $1`, sub, s.mod.id); got != "insert:true,update:true" {
		t.Fatalf("audit: %s", got)
	}
	if n := s.count(s.a, `select * from public.seminar_grade_audit`); n != 0 {
		t.Fatal("a student reads the audit")
	}
	if _, err := s.pool.Exec(s.ctx, `update public.seminar_grade_audit set actor_id = null`); err == nil {
		t.Fatal("the audit was rewritten")
	}
	if _, err := s.pool.Exec(s.ctx, `delete from public.seminar_grade_audit`); err == nil {
		t.Fatal("the audit was deleted")
	}
	// Even a grade changed outside the RPCs (the owner) is audited.
	s.owner(`update public.seminar_grades set comment = 'schimbat' where submission_id = $1`, sub)
	if n := s.ownerInt(`select count(*) from public.seminar_grade_audit where submission_id = $1`, sub); n != 3 {
		t.Fatalf("%d audit rows after an owner change", n)
	}

	// The table and the statistics.
	subB, err := s.submit(s.b, asg, "soluția B")
	if err != nil {
		t.Fatal(err)
	}
	s.grade(subB, 40)
	var states string
	if err := s.scalar(s.mod, &states, `select string_agg(username || '=' || state || ':' || coalesce(grade::text, '-') || '/' || coalesce(ai_score::text, '-'), ',' order by username)
		from public.seminar_gradebook($1)`, s.group); err != nil {
		t.Fatal(err)
	}
	if states != "student_a=confirmed:54.50/70.00,student_b=ai_graded:-/40.00" {
		t.Fatalf("gradebook: %s", states)
	}
	mustState(t, s.exec(s.a, `select * from public.seminar_gradebook($1)`, s.group), "PT404")
	var stats map[string]any
	if err := s.scalar(s.mod, &stats, `select public.seminar_assignment_stats($1)`, asg); err != nil {
		t.Fatal(err)
	}
	if stats["graded"].(float64) != 2 || stats["median"].(float64) != 47.25 {
		t.Fatalf("stats: %v", stats)
	}
	weakest := stats["weakest"].([]any)
	if len(weakest) != 2 || weakest[0].(map[string]any)["id"] != "2.1" {
		t.Fatalf("weakest: %v", weakest)
	}
	// The student's own list.
	var mine string
	if err := s.scalar(s.a, &mine, `select state || '|' || grade || '|' || grade_comment from public.seminar_my_assignments()`); err != nil {
		t.Fatal(err)
	}
	if mine != "confirmed|54.50|schimbat" {
		t.Fatalf("my assignments: %s", mine)
	}
}

func TestSeminarNotificationsAndTutor(t *testing.T) {
	s := newSeminar(t)
	s.mustJoin(s.a)
	asg := s.str(s.mod, `select id from public.seminar_create_assignment(p_group_id => $1, p_kind => 'case', p_case_id => $2,
		p_deadline => (now() + interval '3 hours')::text, p_tutor_allowed => false)`, s.group, s.verified)
	var body string
	if err := s.scalar(s.a, &body, `select body from public.seminar_notifications where kind = 'assignment_new'`); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(body, "Temă nouă în grupa Grupa 101:") {
		t.Fatalf("body %q", body)
	}
	if n := s.count(s.b, `select * from public.seminar_notifications`); n != 0 {
		t.Fatal("B reads A's notifications")
	}
	var n int
	if err := s.scalar(s.a, &n, `select public.seminar_notifications_sync()`); err != nil || n != 1 {
		t.Fatalf("deadline notifications: %d %v", n, err)
	}
	if err := s.scalar(s.a, &n, `select public.seminar_notifications_sync()`); err != nil || n != 0 {
		t.Fatalf("deadline notified twice: %d %v", n, err)
	}
	if err := s.exec(s.a, `update public.seminar_notifications set read_at = now()`); err != nil {
		t.Fatal(err)
	}
	mustState(t, s.exec(s.a, `update public.seminar_notifications set body = 'alt text'`), "42501")

	// The tutor is off for that case while the assignment takes A's work; on for B.
	var allowed bool
	if err := s.scalar(s.a, &allowed, `select public.seminar_tutor_allowed($1)`, s.verified); err != nil || allowed {
		t.Fatalf("A's tutor allowed: %v %v", allowed, err)
	}
	if err := s.scalar(s.b, &allowed, `select public.seminar_tutor_allowed($1)`, s.verified); err != nil || !allowed {
		t.Fatalf("B's tutor allowed: %v %v", allowed, err)
	}
	if _, err := s.submit(s.a, asg, "gata"); err != nil {
		t.Fatal(err)
	}
	s.owner(`update public.seminar_assignments set deadline = now() - interval '1 minute', opens_at = now() - interval '1 day' where id = $1`, asg)
	if err := s.scalar(s.a, &allowed, `select public.seminar_tutor_allowed($1)`, s.verified); err != nil || !allowed {
		t.Fatalf("A's tutor after the assignment: %v %v", allowed, err)
	}

	// Live tables.
	for _, tbl := range []string{"seminar_grades", "seminar_notifications", "seminar_assignments", "seminar_members", "grile_exams", "case_submissions"} {
		if s.ownerInt(`select count(*) from pg_publication_tables where pubname = 'supabase_realtime' and tablename = $1`, tbl) != 1 {
			t.Errorf("%s is not published", tbl)
		}
	}
}

func TestSeminarGrileAssignment(t *testing.T) {
	s := newSeminar(t)
	s.mustJoin(s.a)
	qs := s.moreGrile(4)
	asg := s.str(s.mod, `select id from public.seminar_create_assignment(p_group_id => $1, p_kind => 'grile', p_deadline => (now() + interval '1 day')::text,
		p_grile_minutes => 20, p_grile_question_ids => $2, p_late_policy => 'refuse')`, s.group, qs[:3])
	_, err := s.submit(s.a, asg, "text")
	mustMsg(t, err, "22023", "set de grile")
	exam := s.str(s.a, `select id from public.seminar_grile_start($1)`, asg)
	if again := s.str(s.a, `select id from public.seminar_grile_start($1)`, asg); again != exam {
		t.Fatal("a running exam is not resumed")
	}
	if got := s.str(s.a, `select string_agg(question_id::text, ',' order by position) from public.grile_exam_answers where exam_id = $1`, exam); got != strings.Join(qs[:3], ",") {
		t.Fatalf("questions %s", got)
	}
	mustState(t, s.exec(s.b, `select public.seminar_grile_start($1)`, asg), "42501")
	if n := s.count(s.mod, `select * from public.grile_exams where id = $1`, exam); n != 1 {
		t.Fatal("staff do not see the exam")
	}
	first := qs[0]
	s.finishExam(s.a, exam, func(q string) []string {
		if q == first {
			return []string{"a"}
		}
		return []string{"b"}
	})
	var row string
	if err := s.scalar(s.mod, &row, `select state || ':' || grade from public.seminar_gradebook($1)`, s.group); err != nil {
		t.Fatal(err)
	}
	if row != "scored:33.33" {
		t.Fatalf("gradebook %s", row)
	}
	mustMsg(t, s.exec(s.a, `select public.seminar_grile_start($1)`, asg), "22023", "Ai predat deja")
}
