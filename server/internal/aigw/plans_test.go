package aigw_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/aigw"
)

// TestEarlierWorkReadsUseIndexes: every detection and grade reads the student's earlier
// verdicts and grades on the case. Those reads must be served by an index, not by
// reading every submission ever made (they compared `user_id::text`, which no index
// serves: at 600 simulated students they took a fifth of the database's statement time,
// and the cost grew with the table). With sequential scans priced out, a plan that still
// holds one has no index it can use.
func TestEarlierWorkReadsUseIndexes(t *testing.T) {
	e := start(t, nil)
	ctx := context.Background()
	for name, q := range aigw.EarlierWorkSQL {
		t.Run(name, func(t *testing.T) {
			var plan []string
			err := pgx.BeginFunc(ctx, e.srv.Deps.Owner, func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, "set local enable_seqscan = off"); err != nil {
					return err
				}
				rows, err := tx.Query(ctx, "explain "+q.SQL, q.Args...)
				if err != nil {
					return err
				}
				plan, err = pgx.CollectRows(rows, pgx.RowTo[string])
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if text := strings.Join(plan, "\n"); strings.Contains(text, "Seq Scan") {
				t.Errorf("the plan reads the whole table:\n%s", text)
			}
		})
	}
}
