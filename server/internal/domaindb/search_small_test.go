package domaindb

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/testutil/pgtest"
)

// A catalog of fewer than 256 codes (the shipped one has 131) is read whole by a tier's
// first scan, in code order: search_cases answers from it, as a brute-force query does,
// without the statements it plans on every call to ask the trigram index.
func TestSearchSmallCatalogReadsItOnce(t *testing.T) {
	f := newFixture(t)
	f.owner(`insert into public.cases (case_code, title, domain, verified)
		select (array['CIV','PEN','CON'])[i % 3 + 1] || i || 'X', (array['Răspunderea','Contractul','Furtul'])[i % 3 + 1] || ' nr ' || i,
		       (array['civil','penal','constitutional'])[i % 3 + 1], true
		from generate_series(1, 60) i`)
	brute := `select c.case_code from public.cases c
		where public.search_fold(c.case_code) like $1 || '%' or public.search_fold(c.case_code) like '%' || $1 || '%'
		   or public.search_fold(c.title) like '%' || $1 || '%'
		order by (public.search_fold(c.case_code) like $1 || '%') desc,
		         (public.search_fold(c.case_code) like '%' || $1 || '%') desc, public.search_fold(c.case_code) collate "C"
		limit $2`
	// Three characters or more (shorter input searches word starts only, which the
	// brute-force query does not model), and "fu", which no code contains.
	queries := []string{"civ1", "v12", "12x", "raspunderea", "nr 2", "zzzz", "fu", "iu 2", "ul nr 4", "pen"}
	for _, q := range queries {
		for _, n := range []int{3, 10, 50} {
			var want []string
			err := f.as(f.a, func(tx pgx.Tx) error {
				rows, err := tx.Query(f.ctx, brute, q, n)
				if err != nil {
					return err
				}
				want, err = pgx.CollectRows(rows, pgx.RowTo[string])
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := searchCodes(t, f, f.a, q, n); strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("search_cases(%q, %d) =\n %v\nwant\n %v", q, n, got, want)
			}
		}
	}

	p := pgtest.NewPlanCounter(t, f.pool.Config().ConnString())
	search := func() {
		for _, q := range queries {
			rows, err := p.Conn.Query(f.ctx, "select case_code from public.search_cases($1, 10)", q)
			if err != nil {
				t.Fatal(err)
			}
			rows.Close()
		}
	}
	for range 6 { // past the plan cache's five custom plans
		search()
	}
	before := p.Plans()
	search()
	// One statement of the function is still planned per call (a custom plan for its
	// patterns); the two that asked the trigram index were planned on every call too.
	if n := p.Plans() - before; n > int64(len(queries)) {
		t.Errorf("%d plans for %d searches of a small catalog", n, len(queries))
	}
}
