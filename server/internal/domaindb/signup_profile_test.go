package domaindb

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"casus/server/internal/testutil/pgtest"
)

// Issue 19, bug 1: the profile is made in the same statement as the account, from the
// sign-up metadata, or the account is not made at all.

// signup inserts an auth user as gotrue's sign-up does, with this metadata.
func signup(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, email, meta string) (string, error) {
	var id string
	err := q.QueryRow(ctx, `insert into auth.users (email, aud, role, raw_user_meta_data) values ($1, 'authenticated', 'authenticated', $2::jsonb) returning id`,
		email, meta).Scan(&id)
	return id, err
}

func pgMessage(err error) string {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Message
	}
	return ""
}

func TestSignupTriggerMakesTheProfile(t *testing.T) {
	f := newFixture(t)
	id, err := signup(f.ctx, f.pool, "ioana@example.ro", `{"name": " Ioana Marin ", "username": "ioana_m", "university_code": "UBB", "university_category": "Private", "university_name": "altceva"}`)
	if err != nil {
		t.Fatal(err)
	}
	var name, username, uniName, uniCat, email string
	if err := f.pool.QueryRow(f.ctx, `select name, username, university_name, university_category, email from public.user_profiles where id = $1`, id).
		Scan(&name, &username, &uniName, &uniCat, &email); err != nil {
		t.Fatalf("no profile made with the account: %v", err)
	}
	if name != "Ioana Marin" || username != "ioana_m" || uniName != "Universitatea „Babeș-Bolyai” din Cluj-Napoca" || uniCat != "Public" || email != "ioana@example.ro" {
		t.Fatalf("profile: %q %q %q %q %q", name, username, uniName, uniCat, email)
	}

	// Refused: the sign-up itself fails with the spec's message, and leaves no account.
	for _, c := range []struct{ meta, state, msg string }{
		{`{"name": "Alt Om", "username": "IOANA_M", "university_code": "UB"}`, "23505", "Username is already taken"},
		{`{"name": "Alt Om", "username": "student_a", "university_code": "UB"}`, "23505", "Username is already taken"},
		{`{"name": "Alt Om", "username": "io", "university_code": "UB"}`, "23514", "Username must be at least 3 characters"},
		{`{"name": "Alt Om", "username": "ion pop", "university_code": "UB"}`, "23514", "Username can only contain letters, numbers, and underscores"},
		{`{"name": "A", "username": "ion_pop", "university_code": "UB"}`, "23514", "Name must be at least 2 characters"},
		{`{"name": "Alt Om", "username": "ion_pop"}`, "23503", "Please select a university"},
		{`{"name": "Alt Om", "username": "ion_pop", "university_code": "NOPE"}`, "23503", "Please select a university"},
	} {
		_, err := signup(f.ctx, f.pool, "refuzat@example.ro", c.meta)
		if sqlState(err) != c.state || pgMessage(err) != c.msg {
			t.Fatalf("%s: want %s %q, got %v", c.meta, c.state, c.msg, err)
		}
	}
	if n := f.ownerInt(`select count(*)::int from auth.users where email = 'refuzat@example.ro'`); n != 0 {
		t.Fatalf("a refused sign-up left %d accounts", n)
	}

	// No username in the metadata (admin API, invitation, magic link): no profile yet.
	bare, err := signup(f.ctx, f.pool, "invitat@example.ro", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if n := f.ownerInt(`select count(*)::int from public.user_profiles where id = $1`, bare); n != 0 {
		t.Fatalf("profile without metadata: %d", n)
	}
}

// create_user_profile, the spec's call after sign-up, returns the profile the trigger made
// (as anon right after sign-up, and as the signed-in user), however often it is called; a
// different description is still refused.
func TestCreateUserProfileIsIdempotent(t *testing.T) {
	f := newFixture(t)
	id, err := signup(f.ctx, f.pool, "mihai@example.ro", `{"name": "Mihai Pop", "username": "mihai_p", "university_code": "UVT", "university_name": "Universitatea de Vest din Timișoara"}`)
	if err != nil {
		t.Fatal(err)
	}
	call := func(w who, name, username string) (string, error) {
		var got string
		err := f.as(w, func(tx pgx.Tx) error {
			return tx.QueryRow(f.ctx, `select (public.create_user_profile($1, 'Mihai@Example.ro', $2, $3, 'UVT', 'Public', 'x')).id::text`, id, name, username).Scan(&got)
		})
		return got, err
	}
	for i := 0; i < 2; i++ {
		got, err := call(f.anon, "Mihai Pop", "mihai_p")
		if err != nil || got != id {
			t.Fatalf("anon call %d: %q %v", i, got, err)
		}
	}
	me := who{name: "mihai", role: "authenticated", id: id}
	if got, err := call(me, " Mihai Pop ", "MIHAI_P"); err != nil || got != id {
		t.Fatalf("own call: %q %v", got, err)
	}
	_, err = call(f.anon, "Hacker", "mihai_p")
	mustState(t, err, "23505")
	_, err = call(f.anon, "Mihai Pop", "altul")
	mustState(t, err, "23505")
	if n := f.ownerInt(`select count(*)::int from public.user_profiles where id = $1 and name = 'Mihai Pop' and username = 'mihai_p'`, id); n != 1 {
		t.Fatalf("profile changed: %d", n)
	}

	// An account without a profile (made before the trigger, or by the admin API) creates
	// its own once signed in, with no one-hour limit.
	orphan := f.authUser("orfan@example.ro", 48*time.Hour)
	err = f.as(who{name: "orphan", role: "authenticated", id: orphan}, func(tx pgx.Tx) error {
		_, err := tx.Exec(f.ctx, `select public.create_user_profile($1, 'orfan@example.ro', 'Ana Orfan', 'ana_orfan', 'UB')`, orphan)
		return err
	})
	if err != nil {
		t.Fatalf("orphan completing its profile: %v", err)
	}
}

// Two sign-ups with the same username at the same moment: both pass the check, the second
// waits on the unique index until the first commits, then is refused with the spec's
// message. One account, one profile.
func TestSignupSameUsernameRace(t *testing.T) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	meta := `{"name": "Dan Pop", "username": "dan_pop", "university_code": "UB"}`
	first, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Rollback(ctx)
	if _, err := signup(ctx, first, "dan1@example.ro", meta); err != nil {
		t.Fatal(err)
	}
	second, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Release()
	var secondPID int
	if err := second.QueryRow(ctx, `select pg_backend_pid()`).Scan(&secondPID); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := signup(ctx, second, "dan2@example.ro", meta)
		done <- err
	}()
	// Wait until the second sign-up is blocked on the first one's index entry.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var waiting bool
		if err := pool.QueryRow(ctx, `select coalesce(wait_event_type = 'Lock', false) from pg_stat_activity where pid = $1`, secondPID).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the second sign-up did not wait for the first: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the second sign-up never waited")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := first.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	err = <-done
	if sqlState(err) != "23505" || pgMessage(err) != "Username is already taken" {
		t.Fatalf("second sign-up: %v", err)
	}
	var users, profiles int
	if err := pool.QueryRow(ctx, `select (select count(*) from auth.users where email like 'dan%'), (select count(*) from public.user_profiles where username = 'dan_pop')`).Scan(&users, &profiles); err != nil {
		t.Fatal(err)
	}
	if users != 1 || profiles != 1 {
		t.Fatalf("%d accounts, %d profiles", users, profiles)
	}
}

// The trigger belongs to the study app: the core alone (CASUS_APP=none) has none.
func TestSignupTriggerOnlyWithTheApp(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.NewPlatform(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, `select count(*) from pg_trigger where tgrelid = 'auth.users'::regclass and not tgisinternal`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("core has %d triggers on auth.users (%v)", n, err)
	}
}
