package domaindb

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/db"
)

// A case somebody worked on is never deleted, by a moderator, an admin, service_role or
// the owner: its submissions, completions and conversations stay. A case nobody used can
// still be deleted by its author or a moderator.
func TestCasesInUseAreNeverDeleted(t *testing.T) {
	f := newFixture(t)
	// A's submission on the curriculum case is graded above 50: a completion.
	f.owner(`update public.case_submissions set status = 'graded', score_value = 80, feedback_at = now() where id = $1`, f.subA)
	if n := f.ownerInt(`select count(*) from public.case_completions where case_id = $1`, f.verified); n != 1 {
		t.Fatalf("fixture: %d completions", n)
	}
	for _, w := range []who{f.mod, f.admin, f.svc} {
		_, err := f.try(w, `delete from public.cases where id = $1`, f.verified)
		mustState(t, err, "23503")
		if !strings.Contains(err.Error(), "CIV1AAA is in use") {
			t.Errorf("%s: unclear message: %v", w.name, err)
		}
		// The dry run of the finding: every verified case at once.
		_, err = f.try(w, `delete from public.cases where verified`)
		mustState(t, err, "23503")
	}
	if _, err := f.pool.Exec(f.ctx, `delete from public.cases where id = $1`, f.verified); sqlState(err) != "23503" {
		t.Fatalf("owner deleted a case in use: %v", err)
	}
	// Only a completion left (its submission removed by service tooling): still in use.
	f.owner(`delete from public.chat_conversations where case_id = $1`, f.verified)
	f.owner(`delete from public.case_submissions where case_id = $1`, f.verified)
	if _, err := f.pool.Exec(f.ctx, `delete from public.cases where id = $1`, f.verified); sqlState(err) != "23503" {
		t.Fatalf("deleted a case with a completion: %v", err)
	}
	if n := f.ownerInt(`select count(*) from public.cases where id = $1`, f.verified); n != 1 {
		t.Fatal("the case is gone")
	}
	// Unused cases: the author deletes their own draft, a moderator any case.
	if n, err := f.try(f.a, `delete from public.cases where id = $1`, f.generated); err != nil || n != 1 {
		t.Fatalf("author deleting an unused draft: %d %v", n, err)
	}
	if n, err := f.try(f.mod, `delete from public.cases where id = $1`, f.generated); err != nil || n != 1 {
		t.Fatalf("moderator deleting an unused case: %d %v", n, err)
	}
}

// Two admins demoting each other at the same time: one of them stays an admin.
func TestConcurrentDemotionsKeepAnAdmin(t *testing.T) {
	f := newFixture(t)
	second := f.user("admin2@example.ro", "admin2", "admin")
	second.aal = "aal2"
	demote := func(ctx context.Context, tx pgx.Tx, target string) error {
		_, err := tx.Exec(ctx, `select public.update_user_role($1, 'user')`, target)
		return err
	}
	info := db.RequestInfo{Method: "POST", Path: "/rest/v1/rpc/update_user_role"}
	// The first admin demotes the second and holds the transaction open.
	tx1, err := f.pool.Begin(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx1.Rollback(f.ctx)
	if err := asInTx(f.ctx, tx1, f.admin, info); err != nil {
		t.Fatal(err)
	}
	if err := demote(f.ctx, tx1, second.id); err != nil {
		t.Fatal(err)
	}
	// Meanwhile the second demotes the first.
	done := make(chan error, 1)
	go func() {
		done <- db.AsRole(f.ctx, f.pool, second.claims(), db.ReadWrite, info, func(tx pgx.Tx) error {
			return demote(f.ctx, tx, f.admin.id)
		})
	}()
	// Commit the first only once the second is inside the database: waiting for the
	// first (a lock it cannot get), or already finished (nothing made it wait).
	deadline := time.Now().Add(20 * time.Second)
wait:
	for {
		select {
		case err := <-done:
			done <- err
			break wait
		default:
		}
		if f.ownerInt(`select count(*) from pg_locks l join pg_database d on d.oid = l.database
			where d.datname = current_database() and l.locktype = 'advisory' and not l.granted`) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the second demotion neither finished nor waited")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := tx1.Commit(f.ctx); err != nil {
		t.Fatal(err)
	}
	err = <-done
	admins := f.ownerInt(`select count(*) from public.user_profiles where role = 'admin'`)
	if admins != 1 {
		t.Fatalf("%d admins left after two concurrent demotions (second demotion: %v)", admins, err)
	}
	mustState(t, err, "23514")
}

// asInTx sets the caller's role and claims inside an open transaction, as db.AsRole does.
func asInTx(ctx context.Context, tx pgx.Tx, w who, info db.RequestInfo) error {
	c := w.claims()
	b, _ := json.Marshal(c.Raw)
	claims := string(b)
	_, err := tx.Exec(ctx, `select set_config('role', $1, true), set_config('request.jwt.claims', $2, true),
		set_config('request.jwt.claim.sub', $3, true), set_config('request.method', $4, true)`, c.Role, claims, c.Subject, info.Method)
	return err
}
