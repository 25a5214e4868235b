package seed_test

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/authn"
	"casus/server/internal/db"
	"casus/server/internal/deps"
	"casus/server/internal/seed"
	"casus/server/internal/testutil/pgtest"
)

func seeded(t *testing.T) deps.Deps {
	t.Helper()
	ctx := context.Background()
	url := pgtest.New(t)
	pools, err := db.OpenPools(ctx, url, []byte("0123456789abcdef0123456789abcdef"), db.PoolOptions{OwnerConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pools.Close)
	d := deps.Deps{DatabaseURL: url, Owner: pools.Owner, API: pools.API, Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	if err := seed.Run(ctx, d); err != nil {
		t.Fatal(err)
	}
	return d
}

func count(t *testing.T, d deps.Deps, q string, args ...any) int {
	t.Helper()
	var n int
	if err := d.Owner.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSeedLoadsCodesAndCatalogueIdempotently(t *testing.T) {
	d := seeded(t)
	ctx := context.Background()
	want := map[string]int{"civil": 2674, "penal": 457, "constitutional": 156}
	for code, n := range want {
		if got := count(t, d, "select count(*) from code_articles where code = $1", code); got != n {
			t.Errorf("%s: %d articles, want %d", code, got, n)
		}
	}
	if got := count(t, d, "select count(*) from law_categories"); got != 38+22+9+3 {
		t.Errorf("%d categories", got)
	}
	if got := count(t, d, "select count(*) from category_labels where domain = 'civil' and label = 'Altele'"); got != 1 {
		t.Errorf("civil Altele label: %d", got)
	}
	var loadedAt1 string
	d.Owner.QueryRow(ctx, "select loaded_at::text from casus_meta.seed_state where key = 'codes'").Scan(&loadedAt1)
	// Seeding again changes nothing and rewrites nothing.
	if err := seed.Run(ctx, d); err != nil {
		t.Fatal(err)
	}
	var loadedAt2 string
	d.Owner.QueryRow(ctx, "select loaded_at::text from casus_meta.seed_state where key = 'codes'").Scan(&loadedAt2)
	if loadedAt1 == "" || loadedAt1 != loadedAt2 || count(t, d, "select count(*) from code_articles") != 2674+457+156 {
		t.Errorf("re-seed was not a no-op: %s vs %s", loadedAt1, loadedAt2)
	}
}

func TestCodeArticleRPCs(t *testing.T) {
	d := seeded(t)
	ctx := context.Background()
	student := &authn.Claims{Role: authn.RoleAuthenticated, Raw: map[string]any{"role": "authenticated", "sub": "8b0c7a3e-52f4-4c8e-9d0b-6f1e2a3b4c5d"}}
	var title, body string
	var path []string
	err := db.AsRole(ctx, d.API, student, db.ReadOnly, db.RequestInfo{}, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, "select title, body, heading_path from get_code_article('civil', '2029^1')").Scan(&title, &body, &path)
	})
	if err != nil || title == "" || body == "" || len(path) < 3 {
		t.Fatalf("get_code_article: %v %q %v", err, title, path)
	}
	// Diacritics-insensitive search, highlighted excerpt, the code's own articles first.
	type hit struct{ code, num, title, excerpt string }
	var hits []hit
	err = db.AsRole(ctx, d.API, student, db.ReadOnly, db.RequestInfo{}, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "select code, article_number, coalesce(title, ''), excerpt from search_code_articles('raspunderea delictuala', 'civil', 5)")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var h hit
			if err := rows.Scan(&h.code, &h.num, &h.title, &h.excerpt); err != nil {
				return err
			}
			hits = append(hits, h)
		}
		return rows.Err()
	})
	if err != nil || len(hits) == 0 {
		t.Fatalf("search: %v %v", err, hits)
	}
	for _, h := range hits {
		if h.code != "civil" {
			t.Errorf("code filter ignored: %+v", h)
		}
	}
	// Anonymous callers cannot read the codes through the API.
	anon := &authn.Claims{Role: authn.RoleAnon}
	err = db.AsRole(ctx, d.API, anon, db.ReadOnly, db.RequestInfo{}, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "select * from code_articles limit 1")
		return err
	})
	if err == nil {
		t.Error("anon read code_articles")
	}
	// One-character and empty queries return nothing instead of scanning everything.
	var n int
	_ = db.AsRole(ctx, d.API, student, db.ReadOnly, db.RequestInfo{}, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, "select count(*) from search_code_articles('a')").Scan(&n)
	})
	if n != 0 {
		t.Errorf("1-char query returned %d rows", n)
	}
}

func TestSeedLoadsCurriculum(t *testing.T) {
	cases, err := seed.LoadCases()
	if err != nil || len(cases) == 0 {
		t.Fatalf("no curriculum: %v", err)
	}
	d := seeded(t)
	ctx := context.Background()
	if got := count(t, d, "select count(*) from cases where verified and user_id is null"); got != len(cases) {
		t.Fatalf("%d verified curriculum cases, want %d", got, len(cases))
	}
	c := cases[0]
	var title, level, domain, category string
	var id string
	if err := d.Owner.QueryRow(ctx, "select id, title, level, domain, category from cases where case_code = $1", c.Code).Scan(&id, &title, &level, &domain, &category); err != nil {
		t.Fatal(err)
	}
	if title != c.Title || level != c.Level || domain != c.Domain || category == "" {
		t.Fatalf("%s: %q %q %q %q", c.Code, title, level, domain, category)
	}
	if n := count(t, d, "select count(*) from case_articles where case_id = $1", id); n != len(c.Articles) {
		t.Errorf("articles: %d", n)
	}
	if n := count(t, d, "select max(step_number) from case_analysis_steps where case_id = $1", id); n != len(c.AnalysisSteps) {
		t.Errorf("steps: %d", n)
	}
	if n := count(t, d, "select count(*) from case_hints where case_id = $1", id); n != len(c.Hints) {
		t.Errorf("hints: %d", n)
	}
	// The date of the law, the curriculum flag and the model answer arrive with every case.
	var lawAsOf, answer string
	var curriculum bool
	if err := d.Owner.QueryRow(ctx, `select coalesce(c.law_as_of::text, ''), c.curriculum, coalesce(m.model_answer, '')
		from cases c left join case_model_answers m on m.case_id = c.id where c.id = $1`, id).Scan(&lawAsOf, &curriculum, &answer); err != nil {
		t.Fatal(err)
	}
	if lawAsOf != c.LawAsOf || !curriculum || answer != c.ModelAnswer {
		t.Errorf("%s: law_as_of %q (want %q), curriculum %v, model answer loaded %v", c.Code, lawAsOf, c.LawAsOf, curriculum, answer == c.ModelAnswer)
	}
	if n := count(t, d, "select count(*) from cases c join case_model_answers m on m.case_id = c.id where c.curriculum"); n != len(cases) {
		t.Errorf("%d curriculum cases with a model answer, want %d", n, len(cases))
	}
	// Students read the case but never its model answer.
	student := &authn.Claims{Role: authn.RoleAuthenticated, Raw: map[string]any{"role": "authenticated", "sub": "8b0c7a3e-52f4-4c8e-9d0b-6f1e2a3b4c5d"}}
	err = db.AsRole(ctx, d.API, student, db.ReadOnly, db.RequestInfo{}, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "select model_answer from case_model_answers limit 1")
		return err
	})
	if err == nil {
		t.Error("a student read the model answers")
	}
	// Search finds every shipped case by its code, and by words of its title typed with or without
	// diacritics.
	search := func(q string) map[string]bool {
		found := map[string]bool{}
		err := db.AsRole(ctx, d.API, student, db.ReadOnly, db.RequestInfo{}, func(tx pgx.Tx) error {
			rows, err := tx.Query(ctx, "select case_code from search_cases($1, 50)", q)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var code string
				if err := rows.Scan(&code); err != nil {
					return err
				}
				found[code] = true
			}
			return rows.Err()
		})
		if err != nil {
			t.Fatalf("search_cases(%q): %v", q, err)
		}
		return found
	}
	for _, sc := range cases {
		if !search(sc.Code)[sc.Code] {
			t.Errorf("search by code %s misses it", sc.Code)
		}
		q := titlePhrase(sc.Title)
		if !search(q)[sc.Code] || !search(foldDiacritics(q))[sc.Code] {
			t.Errorf("search %q (or without diacritics) misses %s", q, sc.Code)
		}
	}
	// Re-seeding keeps ids (progress and conversations point at them).
	if _, err := d.Owner.Exec(ctx, "delete from casus_meta.seed_state where key = 'cases'"); err != nil {
		t.Fatal(err)
	}
	if err := seed.Run(ctx, d); err != nil {
		t.Fatal(err)
	}
	var id2 string
	d.Owner.QueryRow(ctx, "select id from cases where case_code = $1", c.Code).Scan(&id2)
	if id2 != id || count(t, d, "select count(*) from case_articles where case_id = $1", id) != len(c.Articles) {
		t.Errorf("re-seed changed the case: %s → %s", id, id2)
	}
}

// titlePhrase returns three consecutive words of the title after the "Caz N:" prefix, as a
// student would type part of it (search matches the code or a substring of the title).
func titlePhrase(title string) string {
	_, rest, _ := strings.Cut(title, ":")
	words := strings.Fields(rest)
	if len(words) > 3 {
		words = words[1:4]
	}
	return strings.Join(words, " ")
}

var romanianFold = strings.NewReplacer("ă", "a", "â", "a", "î", "i", "ș", "s", "ț", "t", "Ă", "A", "Â", "A", "Î", "I", "Ș", "S", "Ț", "T")

func foldDiacritics(s string) string { return romanianFold.Replace(s) }

// A re-seed over an older curriculum: a case dropped from the files that nobody worked on is
// deleted; one with a student's submission is kept with its submission, archived, and hidden
// from other students; a case that comes back is restored; generated cases are never touched.
func TestReseedRetiresDroppedCases(t *testing.T) {
	d := seeded(t)
	ctx := context.Background()
	const worker, other = "8b0c7a3e-52f4-4c8e-9d0b-6f1e2a3b4c5d", "1f0c7a3e-52f4-4c8e-9d0b-6f1e2a3b4c5e"
	if _, err := d.Owner.Exec(ctx, `insert into auth.users (id, email, aud, role) values
		($1, 'worker@x.ro', 'authenticated', 'authenticated'), ($2, 'other@x.ro', 'authenticated', 'authenticated')`, worker, other); err != nil {
		t.Fatal(err)
	}
	// Two cases of an older edition (flagged curriculum, codes no longer in the files) and a
	// verified generated case whose author has left (no user_id): only the flag tells them apart.
	var unused, worked, generated string
	for _, row := range []struct {
		dst        *string
		code       string
		curriculum bool
	}{{&unused, "CIV1ZZA", true}, {&worked, "CIV1ZZB", true}, {&generated, "CIV1ZZC", false}} {
		if err := d.Owner.QueryRow(ctx, `insert into cases (case_code, title, domain, verified, user_id, curriculum)
			values ($1, 'Caz vechi ' || $1, 'civil', true, null, $2) returning id`, row.code, row.curriculum).Scan(row.dst); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.Owner.Exec(ctx, `insert into case_submissions (user_id, case_id, submission_text) values ($1, $2, 'Soluția mea')`, worker, worked); err != nil {
		t.Fatal(err)
	}
	reseed := func() {
		t.Helper()
		if _, err := d.Owner.Exec(ctx, "delete from casus_meta.seed_state where key = 'cases'"); err != nil {
			t.Fatal(err)
		}
		if err := seed.Run(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	reseed()
	if n := count(t, d, "select count(*) from cases where id = $1", unused); n != 0 {
		t.Error("a dropped case nobody worked on was kept")
	}
	if n := count(t, d, "select count(*) from cases where id = $1 and archived_at is not null", worked); n != 1 {
		t.Error("a dropped case with a submission was not kept archived")
	}
	if n := count(t, d, "select count(*) from case_submissions where case_id = $1", worked); n != 1 {
		t.Error("the submission on a dropped case was lost")
	}
	if n := count(t, d, "select count(*) from cases where id = $1 and archived_at is null", generated); n != 1 {
		t.Error("the seed retired a generated case")
	}
	visible := func(user string) (sidebar, search int) {
		claims := &authn.Claims{Role: authn.RoleAuthenticated, Raw: map[string]any{"role": "authenticated", "sub": user}}
		err := db.AsRole(ctx, d.API, claims, db.ReadOnly, db.RequestInfo{}, func(tx pgx.Tx) error {
			if err := tx.QueryRow(ctx, "select count(*) from cases where id = $1", worked).Scan(&sidebar); err != nil {
				return err
			}
			return tx.QueryRow(ctx, "select count(*) from search_cases('CIV1ZZB', 10)").Scan(&search)
		})
		if err != nil {
			t.Fatal(err)
		}
		return sidebar, search
	}
	if s, q := visible(worker); s != 1 || q != 1 {
		t.Errorf("the student who worked on the archived case sees it %d times, finds it %d times", s, q)
	}
	if s, q := visible(other); s != 0 || q != 0 {
		t.Errorf("another student sees the archived case %d times, finds it %d times", s, q)
	}
	// Archiving is idempotent, and a code that comes back into the files is restored in place.
	reseed()
	if n := count(t, d, "select count(*) from cases where id = $1 and archived_at is not null", worked); n != 1 {
		t.Error("a second re-seed changed the archived case")
	}
	cases, _ := seed.LoadCases()
	if _, err := d.Owner.Exec(ctx, "update cases set archived_at = now() where case_code = $1", cases[0].Code); err != nil {
		t.Fatal(err)
	}
	reseed()
	if n := count(t, d, "select count(*) from cases where case_code = $1 and archived_at is null", cases[0].Code); n != 1 {
		t.Error("a case back in the files stayed archived")
	}
}

// A user's case whose code the curriculum also uses stays the user's: seeding neither
// verifies it nor rewrites it as curriculum, and the rest of the curriculum loads.
func TestSeedNeverTakesOverAUsersCase(t *testing.T) {
	ctx := context.Background()
	url := pgtest.New(t)
	pools, err := db.OpenPools(ctx, url, []byte("0123456789abcdef0123456789abcdef"), db.PoolOptions{OwnerConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pools.Close)
	d := deps.Deps{DatabaseURL: url, Owner: pools.Owner, API: pools.API, Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))}
	cases, err := seed.LoadCases()
	if err != nil || len(cases) == 0 {
		t.Fatal(err)
	}
	code := cases[0].Code
	const student = "5a1b7c2a-3d4f-4a6b-8c9d-0e1f2a3b4c5d"
	if _, err := d.Owner.Exec(ctx, `insert into auth.users (id, email, aud, role) values ($1, 's@x.ro', 'authenticated', 'authenticated')`, student); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Owner.Exec(ctx, `insert into public.cases (user_id, case_code, title, level, week_number, legal_problem, case_description, question, verified)
		values ($1, $2, 'Cazul meu', 'Mediu', 1, 'p', 'd', 'q', false)`, student, code); err != nil {
		t.Fatal(err)
	}
	if err := seed.Run(ctx, d); err != nil {
		t.Fatal(err)
	}
	var owner, title string
	var verified bool
	var children int
	if err := d.Owner.QueryRow(ctx, `select coalesce(user_id::text, ''), title, verified,
		(select count(*) from public.case_articles a where a.case_id = c.id) + (select count(*) from public.case_model_answers m where m.case_id = c.id)
		from public.cases c where case_code = $1`, code).Scan(&owner, &title, &verified, &children); err != nil {
		t.Fatal(err)
	}
	if owner != student || title != "Cazul meu" || verified || children != 0 {
		t.Fatalf("the student's case %s became: author %q, title %q, verified %v, %d curriculum children", code, owner, title, verified, children)
	}
	if n := count(t, d, "select count(*) from public.cases where verified and user_id is null"); n != len(cases)-1 {
		t.Fatalf("%d curriculum cases loaded, want %d", n, len(cases)-1)
	}
}

// `make run` re-seeds over a database that students have used (#29): when the files change
// (simulated here by an older edition of the content in the database and no recorded hash),
// every curriculum case and grilă is rewritten in place from the files, under the same id,
// while submissions, completions and tutor conversations on the case, answers and
// spaced-repetition cards on the grilă, and the review queue of generated cases are kept
// exactly as they were.
func TestReseedUpdatesContentInPlace(t *testing.T) {
	d := seeded(t)
	ctx := context.Background()
	cases, err := seed.LoadCases()
	if err != nil {
		t.Fatal(err)
	}
	grile, err := seed.LoadGrile()
	if err != nil {
		t.Fatal(err)
	}
	c, g := cases[0], grile[0]
	const student = "8b0c7a3e-52f4-4c8e-9d0b-6f1e2a3b4c5d"
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := d.Owner.Exec(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`insert into auth.users (id, email, aud, role) values ($1, 'student@x.ro', 'authenticated', 'authenticated')`, student)
	var caseID, grilaID, submissionID, pendingID string
	d.Owner.QueryRow(ctx, "select id from cases where case_code = $1", c.Code).Scan(&caseID)
	d.Owner.QueryRow(ctx, "select id from grile_questions where code = $1", g.Code).Scan(&grilaID)
	if caseID == "" || grilaID == "" {
		t.Fatalf("seeded %s %q, %s %q", c.Code, caseID, g.Code, grilaID)
	}
	// A student's work on the case and on the grilă.
	if err := d.Owner.QueryRow(ctx, `insert into case_submissions (user_id, case_id, submission_text) values ($1, $2, 'Soluția mea')
		returning id`, student, caseID).Scan(&submissionID); err != nil {
		t.Fatal(err)
	}
	exec(`insert into case_completions (user_id, case_id, submission_id, completed_at) values ($1, $2, $3, '2026-11-01T10:00:00Z')`, student, caseID, submissionID)
	exec(`insert into chat_conversations (user_id, case_id, conversation_data, message_count) values ($1, $2, '[{"role":"user","content":"?"}]', 1)`, student, caseID)
	exec(`insert into grile_attempts (user_id, question_id, chosen, is_correct) values ($1, $2, '{a}', false)`, student, grilaID)
	exec(`insert into grile_cards (user_id, question_id, due, stability, difficulty, reps, lapses, state, last_review, last_correct)
		values ($1, $2, '2026-12-24T08:00:00Z', 12.5, 4.25, 3, 1, 2, '2026-11-20T08:00:00Z', false)`, student, grilaID)
	// A generated case waiting in the review queue: not curriculum, not verified.
	if err := d.Owner.QueryRow(ctx, `insert into cases (case_code, title, domain, verified, user_id, curriculum)
		values ('CIV1ZZQ', 'Caz generat în așteptare', 'civil', false, $1, false) returning id`, student).Scan(&pendingID); err != nil {
		t.Fatal(err)
	}
	// The database holds an older edition of both items.
	exec(`update cases set title = 'Caz 0: ediția veche', level = 'Ușor', case_description = 'vechi', question = 'veche?' where id = $1`, caseID)
	exec(`update case_model_answers set model_answer = 'răspunsul vechi' where case_id = $1`, caseID)
	exec(`delete from case_hints where case_id = $1`, caseID)
	exec(`update grile_questions set statement = 'Enunțul vechi al acestei grile:', correct = '{a}' where id = $1`, grilaID)
	exec(`delete from casus_meta.seed_state where key in ('cases', 'grile')`)
	if err := seed.Run(ctx, d); err != nil {
		t.Fatal(err)
	}
	// The content is the files' again, under the same ids.
	var title, level, description, answer string
	if err := d.Owner.QueryRow(ctx, `select c.title, c.level, c.case_description, m.model_answer from cases c
		join case_model_answers m on m.case_id = c.id where c.id = $1 and c.case_code = $2`, caseID, c.Code).Scan(&title, &level, &description, &answer); err != nil {
		t.Fatalf("case %s after re-seed: %v", c.Code, err)
	}
	if title != c.Title || level != c.Level || description != c.CaseDescription || answer != c.ModelAnswer {
		t.Errorf("case %s not updated in place: %q %q", c.Code, title, level)
	}
	if n := count(t, d, "select count(*) from case_hints where case_id = $1", caseID); n != len(c.Hints) {
		t.Errorf("hints %d, want %d", n, len(c.Hints))
	}
	var statement string
	var correct []string
	if err := d.Owner.QueryRow(ctx, `select statement, correct from grile_questions where id = $1 and code = $2`, grilaID, g.Code).Scan(&statement, &correct); err != nil {
		t.Fatalf("grilă %s after re-seed: %v", g.Code, err)
	}
	if statement != strings.TrimSpace(g.Statement) || strings.Join(correct, ",") != strings.Join(g.Correct, ",") {
		t.Errorf("grilă %s not updated in place: %q %v", g.Code, statement, correct)
	}
	// The students' work and the review queue are untouched.
	for q, want := range map[string]int{
		"select count(*) from case_submissions where id = $1 and submission_text = 'Soluția mea'":                                            1,
		"select count(*) from case_completions where submission_id = $1 and completed_at = '2026-11-01T10:00:00Z'":                           1,
		"select count(*) from chat_conversations c join case_submissions s on s.case_id = c.case_id where s.id = $1 and c.message_count = 1": 1,
		"select count(*) from grile_attempts a join case_submissions s on s.user_id = a.user_id where s.id = $1 and a.chosen = '{a}'":        1,
		"select count(*) from grile_cards k join case_submissions s on s.user_id = k.user_id where s.id = $1 and k.due = '2026-12-24T08:00:00Z' " +
			"and k.stability = 12.5 and k.reps = 3 and k.lapses = 1 and k.state = 2 and k.last_correct = false": 1,
	} {
		if n := count(t, d, q, submissionID); n != want {
			t.Errorf("%d rows, want %d: %s", n, want, q)
		}
	}
	if n := count(t, d, `select count(*) from cases where id = $1 and not verified and not curriculum and archived_at is null
		and rejection_reason is null and title = 'Caz generat în așteptare'`, pendingID); n != 1 {
		t.Error("the re-seed touched a generated case in the review queue")
	}
}
