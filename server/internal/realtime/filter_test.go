package realtime

import (
	"encoding/json"
	"testing"
)

func TestFilters(t *testing.T) {
	row := map[string]json.RawMessage{"id": json.RawMessage(`12`), "owner": json.RawMessage(`"abc"`), "done": json.RawMessage(`true`), "note": json.RawMessage(`null`)}
	cases := map[string]bool{
		"id=eq.12": true, "id=eq.13": false, "id=neq.13": true, "id=gt.9": true, "id=gt.100": false,
		"id=gte.12": true, "id=lt.12": false, "id=lte.12": true, "id=in.(1,12,3)": true, "id=in.(1,2)": false,
		"owner=eq.abc": true, "owner=in.(\"abc\",x)": true, "done=eq.true": true, "note=eq.null": false, "missing=eq.1": false,
	}
	for in, want := range cases {
		f, err := parseFilter(in)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got := f.matches(row); got != want {
			t.Errorf("%s: got %v", in, got)
		}
	}
	for _, bad := range []string{"id", "id=like.1", "=eq.1", "id=eq"} {
		if _, err := parseFilter(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if f, err := parseFilter(""); f != nil || err != nil || !f.matches(row) {
		t.Error("empty filter must match everything")
	}
}
