package db_test

import (
	"context"
	"sync"
	"testing"

	"casus/server/internal/db"
	"casus/server/internal/testutil/pgtest"
)

// Databases of one cluster migrated at the same moment share their roles: the platform
// migrations of one must not fail because another updates the same role row ("tuple
// concurrently updated"), as happened when test packages or two deployments started
// together.
func TestMigrateDatabasesOfOneClusterAtOnce(t *testing.T) {
	for round := 0; round < 3; round++ {
		urls := make([]string, 6)
		for i := range urls {
			urls[i] = pgtest.Empty(t)
		}
		var wg sync.WaitGroup
		errs := make([]error, len(urls))
		for i, u := range urls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = db.Migrate(context.Background(), u, false)
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, database %d: %v", round, i, err)
			}
		}
	}
}
