package realtime_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// insertScored inserts a note of userA with a score and a body.
func insertScored(t *testing.T, exec func(string, ...any) error, score int, body string) {
	t.Helper()
	if err := exec("insert into public.rt_notes (owner, body, score) values ($1, $2, $3)", userA, body, score); err != nil {
		t.Fatal(err)
	}
}

// Several conditions separated by commas are ANDed, as Supabase Realtime combines them:
// a range filter delivers the rows inside the range and nothing else. (Before, the
// string was read as one condition "score >= '3,score=lte.5'" and rows above 5 arrived.)
func TestCombinedFiltersDeliverOnlyRowsInside(t *testing.T) {
	srv := startServer(t)
	exec := func(q string, args ...any) error {
		_, err := srv.Deps.Owner.Exec(context.Background(), q, args...)
		return err
	}
	c := dial(t, srv, "2.0.0")
	sub := map[string]any{"postgres_changes": []any{map[string]any{"event": "INSERT", "schema": "public", "table": "rt_notes", "filter": "score=gte.3,score=lte.5"}}}
	if r := c.join("realtime:range", sub, token(t, srv, userA, time.Hour)); r["status"] != "ok" {
		t.Fatalf("join: %v", r)
	}
	if sys := c.next("realtime:range", "system", 2*time.Second); sys["status"] != "ok" {
		t.Fatalf("system: %v", sys)
	}
	for score := 1; score <= 9; score++ {
		insertScored(t, exec, score, fmt.Sprint("s", score))
	}
	insertScored(t, exec, 100, "last")
	var got []float64
	for len(got) < 3 {
		m := c.next("realtime:range", "postgres_changes", 5*time.Second)
		got = append(got, m["data"].(map[string]any)["record"].(map[string]any)["score"].(float64))
	}
	if !slices.Equal(got, []float64{3, 4, 5}) {
		t.Fatalf("range 3..5 delivered %v", got)
	}
	// The last insert is a marker seen by an unfiltered channel: once it has arrived
	// there, every earlier change has been dispatched, and none may reach the range.
	m := dial(t, srv, "2.0.0")
	all := map[string]any{"postgres_changes": []any{map[string]any{"event": "INSERT", "schema": "public", "table": "rt_notes", "filter": "body=eq.marker"}}}
	m.join("realtime:marker", all, token(t, srv, userA, time.Hour))
	m.next("realtime:marker", "system", 2*time.Second)
	insertScored(t, exec, 100, "marker")
	m.next("realtime:marker", "postgres_changes", 5*time.Second)
	c.none("realtime:range", "postgres_changes", 100*time.Millisecond)
}

// A filter Realtime refuses is answered as Supabase answers it: the join succeeds, a
// postgres_changes system message carries the reason, and no change reaches the channel.
func TestRefusedFiltersReportRealtimesError(t *testing.T) {
	srv := startServer(t)
	exec := func(q string, args ...any) error {
		_, err := srv.Deps.Owner.Exec(context.Background(), q, args...)
		return err
	}
	c := dial(t, srv, "2.0.0")
	cases := map[string]string{
		"score=foo.1":              "Error parsing `filter` params: [\"foo\", \"1\"]",
		"score=in.1,2":             "Error parsing `filter` params: `in` filter value must be wrapped by parentheses",
		"score=gte.1,,score=lte.2": "Error parsing `filter` params: filter must not contain empty segments (check for extra commas)",
		"nope=eq.1": "Unable to subscribe to changes with given parameters. An exception happened so please check your connect parameters: " +
			"[event: *, schema: public, table: rt_notes, filters: [{\"nope\", \"eq\", \"1\", false}], select: nil]. Exception: ERROR P0001 (raise_exception) invalid column for filter nope",
		"score=eq.abc":  `invalid input syntax for type integer: "abc"`,
		"owner=like.x%": "operator like requires a text-compatible column type, got uuid",
	}
	i := 0
	for filter, want := range cases {
		i++
		topic := fmt.Sprint("realtime:refused-", i)
		sub := map[string]any{"postgres_changes": []any{
			map[string]any{"event": "*", "schema": "public", "table": "rt_notes"},
			map[string]any{"event": "*", "schema": "public", "table": "rt_notes", "filter": filter},
		}}
		r := c.join(topic, sub, token(t, srv, userA, time.Hour))
		if r["status"] != "ok" {
			t.Fatalf("%s: join %v", filter, r)
		}
		if b := r["response"].(map[string]any)["postgres_changes"].([]any); len(b) != 2 || b[1].(map[string]any)["filter"] != filter {
			t.Fatalf("%s: bindings %v", filter, b)
		}
		sys := c.next(topic, "system", 2*time.Second)
		msg, _ := sys["message"].(string)
		if sys["status"] != "error" || sys["extension"] != "postgres_changes" || !strings.HasSuffix(msg, want) {
			t.Errorf("%s: system %v, want …%s", filter, sys, want)
		}
	}
	// None of those channels receives a change, not even through its unfiltered binding.
	m := dial(t, srv, "2.0.0")
	m.join("realtime:marker", map[string]any{"postgres_changes": []any{map[string]any{"event": "INSERT", "schema": "public", "table": "rt_notes"}}}, token(t, srv, userA, time.Hour))
	m.next("realtime:marker", "system", 2*time.Second)
	insertScored(t, exec, 1, "marker")
	m.next("realtime:marker", "postgres_changes", 5*time.Second)
	for j := 1; j <= i; j++ {
		c.none(fmt.Sprint("realtime:refused-", j), "postgres_changes", 50*time.Millisecond)
	}
}

// Every operator reaches a real subscriber through the server: each channel receives
// exactly the rows its filter admits.
func TestEveryOperatorThroughTheServer(t *testing.T) {
	srv := startServer(t)
	exec := func(q string, args ...any) error {
		_, err := srv.Deps.Owner.Exec(context.Background(), q, args...)
		return err
	}
	filters := map[string][]string{ // filter → bodies it must deliver, in order
		"score=eq.2":                  {"b"},
		"score=neq.2":                 {"a", "c", "d"},
		"score=lt.2":                  {"a"},
		"score=lte.2":                 {"a", "b"},
		"score=gt.2":                  {"c", "d"},
		"score=gte.10,score=lte.100":  {"d"},
		"score=in.(1,3)":              {"a", "c"},
		"score=not.in.(1,3)":          {"b", "d"},
		"body=like.%Z%":               {"c"},
		"body=ilike.%z%":              {"c", "d"},
		"body=match.^[ab]":            {"a", "b"},
		"body=imatch.^D":              {"d"},
		"body=is.null,score=eq.1":     {},
		"body=not.is.null,score=lt.3": {"a", "b"},
		"body=isdistinct.a":           {"b", "c", "d"},
		"body=not.isdistinct.a":       {"a"},
	}
	rows := []struct {
		score int
		body  string
	}{{1, "a"}, {2, "b"}, {3, "cZ"}, {50, "dz"}}
	c := dial(t, srv, "2.0.0")
	topics := map[string]string{}
	i := 0
	for f := range filters {
		i++
		topic := fmt.Sprint("realtime:op-", i)
		topics[f] = topic
		sub := map[string]any{"postgres_changes": []any{map[string]any{"event": "INSERT", "schema": "public", "table": "rt_notes", "filter": f}}}
		if r := c.join(topic, sub, token(t, srv, userA, time.Hour)); r["status"] != "ok" {
			t.Fatalf("%s: %v", f, r)
		}
	}
	for _, r := range rows {
		insertScored(t, exec, r.score, r.body)
	}
	insertScored(t, exec, 1000, "zz-marker")
	// Read everything the socket receives until each filter's expected rows have come,
	// then until the marker has been dispatched (it matches some channels: ilike %z%).
	got := map[string][]string{}
	deadline := time.After(10 * time.Second)
	markerSeen := false
	for !markerSeen {
		select {
		case msg, ok := <-c.msgs:
			if !ok {
				t.Fatal("socket closed")
			}
			if msg[3] != "postgres_changes" {
				continue
			}
			body := msg[4].(map[string]any)["data"].(map[string]any)["record"].(map[string]any)["body"].(string)
			if body == "zz-marker" {
				if msg[2] == topics["body=ilike.%z%"] {
					markerSeen = true
				}
				continue
			}
			for f, topic := range topics {
				if topic == msg[2] {
					got[f] = append(got[f], body[:1])
				}
			}
		case <-deadline:
			t.Fatal("the marker never arrived")
		}
	}
	for f, want := range filters {
		if !slices.Equal(got[f], want) && !(len(want) == 0 && len(got[f]) == 0) {
			t.Errorf("%s delivered %v, want %v", f, got[f], want)
		}
	}
}

// The select option (a column subset) sends the selected columns and the primary key, in
// the record, the columns and the old record, one push per distinct selection; a string,
// an unknown column or a wildcard table is refused as Realtime refuses them.
func TestSelectSendsTheChosenColumns(t *testing.T) {
	srv := startServer(t)
	c := dial(t, srv, "2.0.0")
	subs := map[string]any{"postgres_changes": []any{
		map[string]any{"event": "*", "schema": "public", "table": "rt_notes", "select": []any{"body"}},
		map[string]any{"event": "INSERT", "schema": "public", "table": "rt_notes"},
	}}
	r := c.join("realtime:select", subs, token(t, srv, userA, time.Hour))
	bindings := r["response"].(map[string]any)["postgres_changes"].([]any)
	if r["status"] != "ok" || fmt.Sprint(bindings[0].(map[string]any)["select"]) != "[body]" {
		t.Fatalf("join: %v", r)
	}
	selID, allID := bindings[0].(map[string]any)["id"], bindings[1].(map[string]any)["id"]
	insertAs(t, srv, userA, "ales")
	seen := map[any]map[string]any{}
	for len(seen) < 2 {
		m := c.next("realtime:select", "postgres_changes", 3*time.Second)
		ids := m["ids"].([]any)
		if len(ids) != 1 {
			t.Fatalf("one push per selection, got ids %v", ids)
		}
		seen[ids[0]] = m["data"].(map[string]any)
	}
	sel, all := seen[selID], seen[allID]
	if rec := sel["record"].(map[string]any); len(rec) != 2 || rec["body"] != "ales" || rec["id"] == nil {
		t.Fatalf("selected record: %v", rec)
	}
	if cols := sel["columns"].([]any); len(cols) != 2 {
		t.Fatalf("selected columns: %v", cols)
	}
	if rec := all["record"].(map[string]any); len(rec) != 4 {
		t.Fatalf("unselected record: %v", rec)
	}
	if _, err := srv.Deps.Owner.Exec(context.Background(), "update public.rt_notes set score = 4 where owner = $1", userA); err != nil {
		t.Fatal(err)
	}
	up := c.next("realtime:select", "postgres_changes", 3*time.Second)["data"].(map[string]any)
	if rec := up["record"].(map[string]any); up["type"] != "UPDATE" || rec["score"] != nil || rec["body"] != "ales" {
		t.Fatalf("selected update: %v", up)
	}

	refused := map[string]struct {
		sub  map[string]any
		want string
	}{
		"string":   {map[string]any{"event": "*", "schema": "public", "table": "rt_notes", "select": "body"}, "Error parsing `select` params: expected a list of column name strings, e.g. select: [\"col1\", \"col2\"]"},
		"unknown":  {map[string]any{"event": "*", "schema": "public", "table": "rt_notes", "select": []any{"nope"}}, `select: ["nope"]]. Exception: ERROR P0001 (raise_exception) invalid column for select nope`},
		"wildcard": {map[string]any{"event": "*", "schema": "public", "table": "*", "select": []any{"id"}}, "Column selection is not supported for wildcard subscriptions. Provide an explicit schema and table name."},
	}
	for name, tc := range refused {
		topic := "realtime:select-" + name
		if r := c.join(topic, map[string]any{"postgres_changes": []any{tc.sub}}, token(t, srv, userA, time.Hour)); r["status"] != "ok" {
			t.Fatalf("%s: %v", name, r)
		}
		sys := c.next(topic, "system", 2*time.Second)
		if msg, _ := sys["message"].(string); sys["status"] != "error" || !strings.HasSuffix(msg, tc.want) {
			t.Errorf("%s: %v", name, sys)
		}
	}
}
