package realtime

import (
	"encoding/json"
	"fmt"
	"testing"
)

func subscribed(t *testing.T, table, filter string) *channel {
	t.Helper()
	f, err := parseFilter(filter)
	if err != nil {
		t.Fatalf("%s: %v", filter, err)
	}
	if err := bindTest(f); err != nil {
		t.Fatalf("%s: %v", filter, err)
	}
	return &channel{pgSubs: []pgSub{{Event: "*", Schema: "public", Table: table, Filter: filter, filter: f}}}
}

func contains(chans []*channel, ch *channel) bool {
	for _, c := range chans {
		if c == ch {
			return true
		}
	}
	return false
}

// The index only narrows: whenever a subscription's filter matches a change, its channel
// is among the candidates, whatever form the row writes the value in.
func TestSubIndexNeverDropsAMatch(t *testing.T) {
	rows := []map[string]json.RawMessage{
		{"id": json.RawMessage(`12`), "owner": json.RawMessage(`"0b0b0b0b-0000-4000-8000-00000000000a"`), "title": json.RawMessage(`"Contract (1)"`),
			"done": json.RawMessage(`true`), "price": json.RawMessage(`12.50`), "at": json.RawMessage(`"2026-11-24T10:30:00.123456+00:00"`),
			"tags": json.RawMessage(`{"a": 1}`), "note": json.RawMessage(`null`)},
		{"id": json.RawMessage(`7`), "owner": json.RawMessage(`"{0B0B0B0B-0000-4000-8000-00000000000B}"`), "title": json.RawMessage(`"x\"y"`),
			"done": json.RawMessage(`false`), "price": json.RawMessage(`1e1`), "at": json.RawMessage(`"2026-11-24 12:30:00.123456+02"`)},
	}
	filters := []string{
		"id=eq.12", "id=eq.012", "id=eq.7", "id=eq.7,title=eq.nope", "title=eq.x,id=eq.7", "id=not.eq.12", "id=neq.12",
		"owner=eq.0B0B0B0B-0000-4000-8000-00000000000A", "owner=eq.0b0b0b0b000040008000-00000000000b", "owner=in.(0b0b0b0b-0000-4000-8000-00000000000a)",
		`title=eq."Contract (1)"`, `title=eq.x"y`, "title=like.Contract%", "done=eq.t", "done=eq.false", "done=is.true",
		"price=eq.12.5", "price=eq.10", "price=gt.1", "at=eq.2026-11-24T10:30:00.123456Z", `tags=eq.{"a": 1}`, "note=eq.x", "note=is.null", "",
	}
	for _, filter := range filters {
		for r, row := range rows {
			ch := subscribed(t, "notes", filter)
			x := newSubIndex()
			x.add(ch)
			for _, typ := range []string{"INSERT", "UPDATE", "DELETE"} {
				c := change{Schema: "public", Table: "notes", Type: typ, Record: row}
				if typ == "DELETE" {
					c = change{Schema: "public", Table: "notes", Type: typ, OldRecord: row}
				}
				if ch.pgSubs[0].filter.matches(row) && !contains(x.candidates(c), ch) {
					t.Errorf("%s on row %d (%s): matches, but not a candidate", filter, r, typ)
				}
			}
		}
	}
}

// 600 students each watching their own submissions: a change is weighed against the one
// channel naming its owner (and any that cannot be narrowed), not all 600.
func TestSubIndexNarrowsToTheOwner(t *testing.T) {
	x := newSubIndex()
	owners := make([]*channel, 600)
	for i := range owners {
		owners[i] = subscribed(t, "notes", fmt.Sprintf("owner=eq.0b0b0b0b-0000-4000-8000-%012d", i))
		x.add(owners[i])
	}
	wide := subscribed(t, "notes", "id=gt.0")
	x.add(wide)
	other := subscribed(t, "other", "")
	x.add(other)
	c := change{Schema: "public", Table: "notes", Type: "UPDATE", Record: map[string]json.RawMessage{"owner": json.RawMessage(`"0B0B0B0B-0000-4000-8000-000000000005"`)}}
	got := x.candidates(c)
	if len(got) != 3 || !contains(got, owners[5]) || !contains(got, wide) || !contains(got, other) {
		t.Fatalf("candidates: %d channels, want owner 5 and the two unfiltered ones", len(got))
	}
	x.remove(owners[5])
	if got := x.candidates(c); contains(got, owners[5]) || len(got) != 2 {
		t.Fatalf("after leaving: %d candidates", len(got))
	}
	if tables, every := x.tableNames(); every || len(tables) != 2 {
		t.Fatalf("tables %v every %v", tables, every)
	}
	for _, ch := range append(owners, wide, other) {
		if ch != owners[5] {
			x.remove(ch)
		}
	}
	if len(x.scan) != 0 || len(x.eq) != 0 || len(x.tables) != 0 {
		t.Fatalf("index not empty after every channel left: scan %d eq %d tables %d", len(x.scan), len(x.eq), len(x.tables))
	}
}
