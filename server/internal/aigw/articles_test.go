package aigw

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"casus/server/internal/lawcodes"
	"casus/server/internal/testutil/pgtest"
)

// TestReadCaseArticlesInOneRead: a case's cited articles are read in one statement, and
// each text lands on its own reference, titled on a first line, whatever the order of
// the rows; a reference the codes do not hold, or that is not a reference, has no text.
func TestReadCaseArticlesInOneRead(t *testing.T) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	const id = "cccccccc-1111-4111-8111-000000000003"
	_, err = pool.Exec(ctx, `
		insert into code_articles (code, article_number, article_major, title, body, position) values
		  ('civil', '1357', 1357, 'Condițiile răspunderii', 'Cel care cauzează altuia un prejudiciu…', 1357),
		  ('civil', '1349', 1349, null, 'Orice persoană are îndatorirea…', 1349);
		insert into cases (id, case_code, title, domain, legal_problem, case_description, question, verified)
		values ('`+id+`', 'CIV1ART', 'Caz 1: Geamul spart', 'civil', 'p', 'd', 'q', true);
		insert into case_articles (case_id, article_number, article_reference) values
		  ('`+id+`', '1357', 'Art. 1357 C.civ.'), ('`+id+`', '1349', 'Art. 1349 C.civ.'),
		  ('`+id+`', '9999', 'Art. 9999 C.civ.'), ('`+id+`', 'x', 'Legea nr. 1/2000');`)
	if err != nil {
		t.Fatal(err)
	}
	c, err := readCase(ctx, pool, id)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"Art. 1357 C.civ.": "Condițiile răspunderii\nCel care cauzează altuia un prejudiciu…",
		"Art. 1349 C.civ.": "Orice persoană are îndatorirea…",
		"Art. 9999 C.civ.": "",
		"Legea nr. 1/2000": "",
	}
	if len(c.ArticleTexts) != len(want) {
		t.Fatalf("articles = %+v", c.ArticleTexts)
	}
	for _, a := range c.ArticleTexts {
		if text, ok := want[a.Ref]; !ok || a.Text != text {
			t.Errorf("%s: text %q, want %q", a.Ref, a.Text, text)
		}
	}
}

// TestArticleTextsPlannedOnce: the gateway reads article texts before every model call.
// The join used to be planned on each of them (PostgreSQL preferred a custom plan for
// the few pairs a case cites); now a connection plans it once. Its answers are checked
// above.
func TestArticleTextsPlannedOnce(t *testing.T) {
	ctx := context.Background()
	p := pgtest.NewPlanCounter(t, pgtest.New(t))
	// The plan PostgreSQL prefers depends on the table: as many articles as the shipped
	// codes hold, and their statistics.
	_, err := p.Conn.Exec(ctx, `
		insert into code_articles (code, article_number, article_major, title, body, position)
		select c, n::text, n, 'Titlu ' || n, repeat('Text al articolului. ', 20), n
		from (values ('civil', 2700), ('penal', 450), ('constitutional', 160)) v(c, k), generate_series(1, k) n;
		analyze code_articles`)
	if err != nil {
		t.Fatal(err)
	}
	cited := []lawcodes.Citation{{Code: "civil", Number: "1357"}, {Code: "civil", Number: "1349"}, {Code: "penal", Number: "188"}}
	const calls = 20
	before := p.Plans()
	for range calls {
		if _, err := articleTexts(ctx, p.Conn, cited); err != nil {
			t.Fatal(err)
		}
	}
	// pgx prepares the statement; PostgreSQL plans the call custom five times, then
	// generic, and the function's join once.
	if n := p.Plans() - before; n > calls/2 {
		t.Errorf("%d plans for %d reads of the same articles", n, calls)
	}
}
