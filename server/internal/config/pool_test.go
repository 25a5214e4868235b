package config

import (
	"strings"
	"testing"
)

// DB_POOL_MIN defaults to 4 idle data-API connections and must leave at least one.
func TestPoolMinConns(t *testing.T) {
	t.Setenv("CASUS_STATE_DIR", t.TempDir())
	c, err := Load()
	if err != nil || c.DBPoolMin != 4 {
		t.Fatalf("default: %d, %v", c.DBPoolMin, err)
	}
	t.Setenv("DB_POOL_MIN", "2")
	if c, err := Load(); err != nil || c.DBPoolMin != 2 {
		t.Fatalf("DB_POOL_MIN=2: %d, %v", c.DBPoolMin, err)
	}
	t.Setenv("DB_POOL_MIN", "0")
	if _, err := Load(); err == nil || !strings.Contains(err.Error(), "DB_POOL_MIN must be at least 1") {
		t.Fatalf("DB_POOL_MIN=0: %v", err)
	}
}
