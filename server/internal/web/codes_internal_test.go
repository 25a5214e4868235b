package web

import (
	"context"
	"testing"

	"casus/server/internal/config"
	"casus/server/internal/deps"
)

// The code texts are compressed once per process, not once per Server: every test
// server's start paid 100–170 ms of CPU for the same bytes.
func TestServersShareTheCompressedCodes(t *testing.T) {
	d := deps.Deps{Config: &config.Config{FrontendDir: t.TempDir()}}
	a, err := New(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	civil := a.codes["codul_civil"]
	if civil == nil || len(civil.gz) == 0 {
		t.Fatalf("no compressed civil code: %+v", civil)
	}
	if b.codes["codul_civil"] != civil {
		t.Fatal("the second server compressed the codes again")
	}
}
