package operator

import "testing"

func TestEveryOperatorIsDescribed(t *testing.T) {
	seen := map[string]bool{}
	for _, o := range All() {
		name := o.String()
		if name == "" || seen[name] {
			t.Fatalf("operator %d: name %q missing or repeated", o, name)
		}
		seen[name] = true
		if back, ok := Parse(name); !ok || back != o {
			t.Fatalf("%s does not parse back", name)
		}
		switch o.Kind() {
		case Compare, Pattern, Regex:
			if o.SQL() == "" {
				t.Fatalf("%s has no SQL operator", name)
			}
		case FullText:
			if o.TSQuery() == "" {
				t.Fatalf("%s has no tsquery function", name)
			}
		case List, Truth, Distinct:
		default:
			t.Fatalf("%s has no kind", name)
		}
	}
	// PostgREST's operators (docs: Operators table), and no other.
	want := []string{"eq", "neq", "gt", "gte", "lt", "lte", "like", "ilike", "match", "imatch", "in", "is",
		"isdistinct", "cs", "cd", "ov", "sl", "sr", "nxl", "nxr", "adj", "fts", "plfts", "phfts", "wfts"}
	if len(want) != len(seen) {
		t.Fatalf("%d operators, want %d", len(seen), len(want))
	}
	for _, n := range want {
		if !seen[n] {
			t.Fatalf("missing %s", n)
		}
	}
	if _, ok := Parse("between"); ok {
		t.Fatal("an unknown operator parsed")
	}
}

// Supabase Realtime's @filter_types: eq, neq, lt, lte, gt, gte, in, like, ilike, is,
// match, imatch, isdistinct.
func TestRealtimeSubset(t *testing.T) {
	var got []string
	for _, o := range All() {
		if o.Realtime() {
			got = append(got, o.String())
		}
	}
	if len(got) != 13 {
		t.Fatalf("realtime operators %v", got)
	}
	if o, _ := Parse("cs"); o.Realtime() {
		t.Fatal("cs is not a realtime filter")
	}
}
