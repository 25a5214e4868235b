package domaindb

import (
	"testing"

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
	// Three characters or more, and "fu", which no code contains.
	queries := []string{"civ1", "v12", "12x", "raspunderea", "nr 2", "zzzz", "fu", "iu 2", "ul nr 4", "pen"}
	searchMatchesBruteForce(t, f, queries)

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
