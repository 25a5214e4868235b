package domaindb

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/db"
	"casus/server/internal/testutil/pgtest"
)

// Re-running the migrations on a migrated database changes nothing; the university list is
// the fixed 31 entries, with the sign-up picker's names exactly as shipped.
func TestMigrationsRerunAndUniversities(t *testing.T) {
	ctx := context.Background()
	url := pgtest.New(t)
	schema := func() string {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		var s string
		if err := c.QueryRow(ctx, `select string_agg(table_name || '.' || column_name || ':' || data_type, ',' order by table_name, column_name)
			from information_schema.columns where table_schema = 'public'`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := c.QueryRow(ctx, `select count(*) from public.universities`).Scan(&n); err != nil || n != 31 {
			t.Fatalf("universities: %d %v", n, err)
		}
		return s
	}
	before := schema()
	v1, err := db.Migrate(ctx, url, true)
	if err != nil {
		t.Fatal(err)
	}
	v2, err := db.Migrate(ctx, url, true)
	if err != nil || v2 != v1 {
		t.Fatalf("re-run: version %v → %v, %v", v1, v2, err)
	}
	if schema() != before {
		t.Fatal("re-running migrations changed the schema")
	}

	f := newFixture(t)
	var groups string
	if err := f.pool.QueryRow(ctx, `select string_agg(category || ':' || n, ',' order by category) from
		(select category, count(*) n from public.universities group by category) g`).Scan(&groups); err != nil || groups != "Other:1,Private:14,Public:16" {
		t.Fatalf("groups %q %v", groups, err)
	}
	var name string
	err = f.as(f.anon, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `select name from public.universities where code = 'UDJG'`).Scan(&name)
	})
	if err != nil || name != "Universitatea „Dunărea de Jos” din Galați" {
		t.Fatalf("UDJG as anon: %q %v", name, err)
	}
}
