package main

import (
	"os"
	"testing"
)

// The committed module is what the server's rules generate (as make verify/generated).
func TestCommittedModuleIsCurrent(t *testing.T) {
	old, err := os.ReadFile("../../../" + out)
	if err != nil {
		t.Fatal(err)
	}
	if string(old) != generate() {
		t.Fatalf("%s is stale: run `make generate/types`", out)
	}
}
