package aigw_test

import (
	"context"
	"testing"
)

// A seminar assignment set without the tutor (sql/app 026) turns the tutor off for its
// members on that case until their work is in, before anything reaches the provider.
func TestSeminarAssignmentWithoutTutor(t *testing.T) {
	e := start(t, nil)
	// The group, its assignment and A's membership, written as the RPCs would.
	if _, err := e.srv.Deps.Owner.Exec(context.Background(), `
		with g as (insert into seminar_groups (name, university_code, academic_year, semester) values ('Grupa 1', 'UB', '2025-2026', 1) returning id),
		     m as (insert into seminar_members (group_id, user_id) select id, '`+userA+`' from g)
		insert into seminar_assignments (group_id, kind, title, case_id, deadline, tutor_allowed)
		select id, 'case', 'Tema 1', '`+caseID+`', now() + interval '1 day', false from g`); err != nil {
		t.Fatal(err)
	}
	tutor := map[string]string{"X-Casus-Task": "tutor", "X-Casus-Case": caseID}
	msg := map[string]any{"messages": []map[string]any{{"role": "user", "content": "Ce articol se aplică?"}}}
	before := len(e.fake.Requests())
	st, out := e.call(e.token(userA), tutor, msg)
	if st != 403 || errType(out) != "permission_error" {
		t.Fatalf("member of a no-tutor assignment: %d %v", st, out)
	}
	if n := len(e.fake.Requests()); n != before {
		t.Fatalf("%d requests reached the provider", n-before)
	}
	if st, out := e.call(e.token(userB), tutor, msg); st != 200 {
		t.Fatalf("a student outside the group: %d %v", st, out)
	}
}
