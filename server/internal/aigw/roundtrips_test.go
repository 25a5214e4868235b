package aigw

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"casus/server/internal/authn"
	"casus/server/internal/config"
	"casus/server/internal/db"
	"casus/server/internal/deps"
	"casus/server/internal/testutil/pgtest"
)

// roundTrips counts what a pool's connections send: a statement alone, or a batch, is
// one network round trip (and one wake-up of a backend) each.
type roundTrips struct{ n atomic.Int64 }

func (r *roundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *roundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (r *roundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *roundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (r *roundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}
func (r *roundTrips) TracePrepareStart(ctx context.Context, _ *pgx.Conn, _ pgx.TracePrepareStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *roundTrips) TracePrepareEnd(context.Context, *pgx.Conn, pgx.TracePrepareEndData) {}

// counted is cfg's pool, one connection, with its round trips counted.
func counted(t *testing.T, cfg *pgxpool.Config) (*pgxpool.Pool, *roundTrips) {
	t.Helper()
	rt := &roundTrips{}
	cfg = cfg.Copy()
	cfg.MaxConns, cfg.MinConns = 1, 0
	cfg.ConnConfig.Tracer = rt
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool, rt
}

// TestTutorCallRoundTrips: the gateway's steps before a tutor question reaches the model
// each go to PostgreSQL in as few round trips as their order allows. Claiming the round
// (lock, earlier turns, the question recorded) and counting the call against the quota
// (lock, count) are one batch each, which PostgreSQL runs as one implicit transaction;
// the case is read as the caller in one round trip and its articles' texts in another.
// Each figure is taken on a warm connection: the statements are prepared already.
func TestTutorCallRoundTrips(t *testing.T) {
	ctx := context.Background()
	url := pgtest.New(t)
	secret := []byte("round-trips-test-secret-of-32-bytes-or-more")
	pools, err := db.OpenPools(ctx, url, secret, db.PoolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pools.Close)
	const uid, caseID = "aaaaaaaa-1111-4111-8111-000000000001", "cccccccc-1111-4111-8111-000000000003"
	if _, err := pools.Owner.Exec(ctx, `
		insert into auth.users (id, email, aud, role) values ('`+uid+`', 'rt@example.ro', 'authenticated', 'authenticated');
		insert into code_articles (code, article_number, article_major, title, body, position) values
		  ('civil', '1357', 1357, 'Condițiile răspunderii', 'Cel care cauzează altuia un prejudiciu…', 1357);
		insert into cases (id, case_code, title, domain, legal_problem, case_description, question, verified)
		values ('`+caseID+`', 'CIVRT', 'Caz 1: Geamul spart', 'civil', 'p', 'd', 'q', true);
		insert into case_articles (case_id, article_number, article_reference) values ('`+caseID+`', '1357', 'Art. 1357 C.civ.');`); err != nil {
		t.Fatal(err)
	}
	owner, ownerRT := counted(t, pools.Owner.Config())
	api, apiRT := counted(t, pools.API.Config())
	cfg := &config.Config{AIDailyRequests: 100, AIDailyTokens: 1_000_000}
	s := &Server{d: deps.Deps{Config: cfg, Owner: owner, API: api, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}}
	claims := &authn.Claims{RegisteredClaims: jwt.RegisteredClaims{Subject: uid, ExpiresAt: jwt.NewNumericDate(time.Now().Add(time.Hour))},
		Role: authn.RoleAuthenticated}

	measure := func(name string, want int64, rt *roundTrips, step func() error) {
		t.Helper()
		if err := step(); err != nil { // warm: prepares the statements on the connection
			t.Fatalf("%s: %v", name, err)
		}
		before := rt.n.Load()
		if err := step(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := rt.n.Load() - before; got != want {
			t.Errorf("%s: %d round trips, want %d", name, got, want)
		}
	}
	measure("claim a round", 1, ownerRT, func() error {
		_, id, err := s.claimRound(ctx, uid, caseID, "Ce condiții are răspunderea?")
		if err == nil && id == 0 {
			t.Error("claim a round: no round given with rounds left")
		}
		return err
	})
	measure("reserve the quota", 1, ownerRT, func() error { return s.reserve(ctx, uid, "tutor") })
	measure("read the case as the caller", 1, apiRT, func() error {
		c, err := s.loadCaseAs(ctx, claims, caseID)
		if err == nil && (c.Title != "Caz 1: Geamul spart" || len(c.ArticleTexts) != 1 || c.ArticleTexts[0].Text == "") {
			t.Errorf("case read: %+v", c)
		}
		return err
	})
	measure("read the case's articles", 1, ownerRT, func() error { _, err := s.loadCaseAs(ctx, claims, caseID); return err })

	// The batch keeps the rounds' limit: the fourth question is the last one recorded.
	for range tutorRounds {
		_, _, _ = s.claimRound(ctx, uid, caseID, "încă o întrebare")
	}
	if _, id, err := s.claimRound(ctx, uid, caseID, "una prea multe"); err != nil || id != 0 {
		t.Errorf("past the rounds: id %d, err %v; want no round", id, err)
	}
	var asked int
	if err := owner.QueryRow(ctx, `select count(*) from casus_meta.tutor_turns where user_id = $1 and case_id = $2 and role = 'user'`,
		uid, caseID).Scan(&asked); err != nil || asked != tutorRounds {
		t.Errorf("questions recorded: %d (%v), want %d", asked, err, tutorRounds)
	}

	// Concurrent calls on a pool of several connections: the lock in each batch lets
	// exactly the rounds and the requests the limits allow through.
	shared := &Server{d: deps.Deps{Config: &config.Config{AIDailyRequests: 3, AIDailyTokens: 1_000_000}, Owner: pools.Owner, API: pools.API,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}}
	const uid2 = "aaaaaaaa-1111-4111-8111-000000000002"
	if _, err := pools.Owner.Exec(ctx, `insert into auth.users (id, email, aud, role) values ('`+uid2+`', 'rt2@example.ro', 'authenticated', 'authenticated')`); err != nil {
		t.Fatal(err)
	}
	var rounds, reserved atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, id, err := shared.claimRound(ctx, uid2, caseID, "în același timp"); err != nil {
				t.Error(err)
			} else if id != 0 {
				rounds.Add(1)
			}
			if err := shared.reserve(ctx, uid2, "tutor"); err == nil {
				reserved.Add(1)
			} else if e, ok := err.(*apiError); !ok || e.status != 429 {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if rounds.Load() != tutorRounds || reserved.Load() != 3 {
		t.Errorf("8 concurrent questions: %d rounds given (want %d), %d requests counted (want 3)", rounds.Load(), tutorRounds, reserved.Load())
	}
}
