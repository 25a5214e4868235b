package seed_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/catalog"
	"casus/server/internal/deps"
	"casus/server/internal/seed"
)

func grila(code, statement string) seed.Grila {
	return seed.Grila{
		Code: code, Domain: "civil", CategoryID: "legea_civila", Subcategory: "Izvoarele dreptului civil", Level: "Ușor",
		LawAsOf: "2026-11-01", Statement: statement,
		Options: map[string]string{"a": "varianta întâi;", "b": "varianta a doua;", "c": "varianta a treia."},
		Correct: []string{"c", "a"},
		Explanations: map[string]string{
			"a": "Corect: art. 1 alin. (2) C.civ. — explicația variantei a.",
			"b": "Greșit: art. 1 alin. (4) C.civ. și art. 53 din Constituție — explicația variantei b.",
			"c": "Corect: art. 1 alin. (5) C.civ. — explicația variantei c.",
		},
	}
}

func seedGrile(t *testing.T, d deps.Deps, items ...seed.Grila) string {
	t.Helper()
	var msg string
	err := pgx.BeginFunc(context.Background(), d.Owner, func(tx pgx.Tx) error {
		var err error
		msg, _, err = seed.SeedGrile(context.Background(), tx, items)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

// The grile load by code: a reload keeps each question's id (students' attempts point at
// it), a dropped question is deleted when unused and retired when answered, a malformed
// one is skipped, and the key is stored sorted with each option's cited articles.
func TestSeedLoadsGrileByCode(t *testing.T) {
	d := seeded(t)
	ctx := context.Background()
	// The shipped files (whichever exist) are loaded by Run.
	shipped, err := seed.LoadGrile()
	if err != nil {
		t.Fatal(err)
	}
	// Every shipped grilă that keeps FORMAT.md's rules is loaded (TestGrile holds the files
	// to them; the loader only skips what the database could not take).
	cat, _ := catalog.Load()
	arts, _ := seed.ArticleIndex()
	valid := len(seed.ValidateGrile(shipped, cat, arts)) == 0
	if got := count(t, d, "select count(*) from grile_questions where retired_at is null"); got > len(shipped) || (valid && got != len(shipped)) {
		t.Fatalf("%d grile loaded from %d shipped", got, len(shipped))
	}
	// Synthetic content from here on.
	g1, g2 := grila("GCIV901", "Prima întrebare de test, suficient de lungă:"), grila("GCIV902", "A doua întrebare de test, suficient de lungă:")
	broken := grila("GCIV903", "A treia întrebare, fără variante complete:")
	delete(broken.Options, "c")
	msg := seedGrile(t, d, g1, g2, broken)
	if !strings.Contains(msg, "skipped") || !strings.Contains(msg, "GCIV903") {
		t.Errorf("malformed grilă not reported: %s", msg)
	}
	var id1 string
	var correct []string
	var citations string
	if err := d.Owner.QueryRow(ctx, `select id, correct, citations::text from grile_questions where code = 'GCIV901'`).Scan(&id1, &correct, &citations); err != nil {
		t.Fatal(err)
	}
	if strings.Join(correct, ",") != "a,c" || !strings.Contains(citations, `"article": "53"`) || !strings.Contains(citations, `"code": "constitutional"`) {
		t.Errorf("stored key %v citations %s", correct, citations)
	}
	if count(t, d, "select count(*) from grile_questions where code = 'GCIV903'") != 0 {
		t.Error("malformed grilă loaded")
	}
	// Someone answered g1; then both leave the files.
	user := addUser(t, d)
	if _, err := d.Owner.Exec(ctx, `insert into grile_attempts (user_id, question_id, chosen, is_correct) values ($1, $2, '{a}', false)`, user, id1); err != nil {
		t.Fatal(err)
	}
	g1.Statement = "Prima întrebare de test, reformulată acum:"
	msg = seedGrile(t, d, g1)
	var id1Again, statement string
	if err := d.Owner.QueryRow(ctx, `select id, statement from grile_questions where code = 'GCIV901'`).Scan(&id1Again, &statement); err != nil || id1Again != id1 || statement != g1.Statement {
		t.Errorf("reload by code: %v id %s→%s %q", err, id1, id1Again, statement)
	}
	if count(t, d, "select count(*) from grile_questions where code = 'GCIV902'") != 0 {
		t.Errorf("unused dropped grilă kept (%s)", msg)
	}
	seedGrile(t, d, g2)
	if count(t, d, "select count(*) from grile_questions where code = 'GCIV901' and retired_at is not null") != 1 {
		t.Error("answered dropped grilă not retired")
	}
	seedGrile(t, d, g1, g2)
	if count(t, d, "select count(*) from grile_questions where code in ('GCIV901', 'GCIV902') and retired_at is null") != 2 {
		t.Error("a grilă back in the files stays retired")
	}
}

func addUser(t *testing.T, d deps.Deps) string {
	t.Helper()
	var id string
	if err := d.Owner.QueryRow(context.Background(), `insert into auth.users (email, aud, role) values ('grile@example.ro', 'authenticated', 'authenticated') returning id`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}
