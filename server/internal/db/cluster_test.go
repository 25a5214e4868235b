package db_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"casus/server/internal/db"
)

// The fallback for machines with PostgreSQL installed but not running: initdb once,
// start on a private unix socket, create the database, migrate, stop.
func TestPrivateCluster(t *testing.T) {
	if _, err := db.FindPostgresBin(); err != nil {
		t.Skip("PostgreSQL binaries not installed:", err)
	}
	dir := t.TempDir()
	// The cluster may run as the system postgres user, which must reach the directory.
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cl, err := db.StartPrivateCluster(ctx, log, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Stop()
	url := cl.URL("casus")
	if !db.Reachable(ctx, url) {
		t.Fatal("private cluster not reachable")
	}
	if err := db.EnsureDatabase(ctx, url); err != nil {
		t.Fatal(err)
	}
	if v, err := db.Migrate(ctx, url, true); err != nil || v.Platform < 5 || v.App < 9 {
		t.Fatalf("migrate: %v err=%v", v, err)
	}
	cl.Stop()
	if db.Reachable(ctx, url) {
		t.Fatal("still reachable after Stop")
	}
}
