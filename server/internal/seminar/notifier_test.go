package seminar_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"casus/server/internal/deps"
	"casus/server/internal/seminar"
	"casus/server/internal/testutil/pgtest"
)

// The job writes "deadline within 24 hours" for members who handed nothing in, once.
func TestNotifierWritesDeadlineNotifications(t *testing.T) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(ctx, `
		insert into auth.users (id, email) values ('aaaaaaaa-1111-4111-8111-000000000001', 'a@x.ro');
		insert into cases (id, case_code, title, domain, legal_problem, case_description, question, verified)
		values ('cccccccc-1111-4111-8111-000000000003', 'CIV1AIX', 'Caz 1', 'civil', 'p', 'd', 'q', true);
		with g as (insert into seminar_groups (name, university_code, academic_year, semester) values ('Grupa 1', 'UB', '2025-2026', 1) returning id),
		     m as (insert into seminar_members (group_id, user_id) select id, 'aaaaaaaa-1111-4111-8111-000000000001' from g)
		insert into seminar_assignments (group_id, kind, title, case_id, deadline)
		select id, 'case', 'Tema 1', 'cccccccc-1111-4111-8111-000000000003', now() + interval '3 hours' from g`); err != nil {
		t.Fatal(err)
	}
	n, err := seminar.New(ctx, deps.Deps{Owner: pool, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	var count int
	for time.Now().Before(deadline) {
		if err := pool.QueryRow(ctx, `select count(*) from seminar_notifications where kind = 'deadline_soon'`).Scan(&count); err != nil {
			t.Fatal(err)
		}
		if count > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond) // polling the database for the job's first run
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if count != 1 {
		t.Fatalf("%d deadline notifications", count)
	}
}
