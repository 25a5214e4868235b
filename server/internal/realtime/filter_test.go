package realtime

import (
	"encoding/json"
	"strings"
	"testing"
)

var testColumns = map[string][2]string{
	"id": {"int8", "bigint"}, "owner": {"uuid", "uuid"}, "title": {"text", "text"}, "done": {"bool", "boolean"},
	"note": {"text", "text"}, "price": {"numeric", "numeric"}, "at": {"timestamptz", "timestamp with time zone"},
	"tags": {"jsonb", "jsonb"},
}

func bindTest(f *changeFilter) error {
	return f.bind(func(name string) (string, string) { c := testColumns[name]; return c[0], c[1] })
}

// Every operator of current Supabase Realtime, its not. form, and conditions ANDed.
func TestFilters(t *testing.T) {
	row := map[string]json.RawMessage{
		"id": json.RawMessage(`12`), "owner": json.RawMessage(`"0b0b0b0b-0000-4000-8000-00000000000a"`),
		"title": json.RawMessage(`"Contract, de vânzare (1)"`), "done": json.RawMessage(`true`),
		"note": json.RawMessage(`null`), "price": json.RawMessage(`9007199254740993.5`),
		"at": json.RawMessage(`"2026-11-24T10:30:00.123456+00:00"`), "tags": json.RawMessage(`{"a": 1}`),
	}
	cases := map[string]bool{
		"id=eq.12": true, "id=eq.13": false, "id=neq.13": true, "id=neq.12": false, "id=gt.9": true, "id=gt.100": false,
		"id=gte.12": true, "id=gte.13": false, "id=lt.12": false, "id=lt.100": true, "id=lte.12": true, "id=lte.11": false,
		"id=in.(1,12,3)": true, "id=in.(1,2)": false, "id=in.( 1 , 12 )": true, "id=not.in.(12)": false, "id=not.eq.5": true,
		"id=gte.3,id=lte.5": false, "id=gte.10,id=lte.12": true, "id=gt.1,title=eq.nope": false,
		// 100 > 12 numerically although "100" < "12" as text
		"id=lt.100,id=gt.2":         true,
		"price=gt.9007199254740993": true, "price=lt.9007199254740993.6": true, "price=eq.9007199254740993": false,
		"owner=eq.0B0B0B0B-0000-4000-8000-00000000000A": true, "owner=in.(0b0b0b0b-0000-4000-8000-00000000000a)": true,
		`title=eq."Contract, de vânzare (1)"`: true, `title=in.("Contract, de vânzare (1)",x)`: true,
		"title=like.Contract%": true, "title=like.contract%": false, "title=ilike.contract%": true, "title=like.%(1)": true,
		"title=like.Contract_ de%": true, "title=not.like.Contract%": false, "title=like.Contract": false,
		"title=match.^Con.*\\(1\\)$": true, "title=imatch.^con": true, "title=match.^con": false,
		"done=eq.true": true, "done=is.true": true, "done=is.false": false, "done=not.is.true": false, "done=eq.t": true,
		"note=is.null": true, "note=not.is.null": false, "title=is.null": false, "title=not.is.null": true,
		"note=eq.x": false, "note=neq.x": false, "note=not.eq.x": false, "note=isdistinct.x": true, "note=not.isdistinct.x": false,
		"title=isdistinct.x": true, "id=not.isdistinct.12": true, "id=isdistinct.12": false,
		"at=gt.2026-11-24": true, "at=lt.2026-11-24T10:30:00.2Z": true, "at=gt.2026-11-24T12:00:00+02:00": true,
		"at=gte.2026-11-25": false, "at=eq.2026-11-24T10:30:00.123456Z": true,
		`tags=eq.{"a": 1}`: true,
	}
	for in, want := range cases {
		f, err := parseFilter(in)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if err := bindTest(f); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got := f.matches(row); got != want {
			t.Errorf("%s: got %v", in, got)
		}
	}
	if f, err := parseFilter("  "); f != nil || err != nil || !f.matches(row) {
		t.Error("an empty filter must match everything")
	}
	if f, _ := parseFilter("missing=eq.1"); f.matches(row) {
		t.Error("a column the record lacks matched")
	}
}

// Parse errors carry Realtime's messages (subscriptions.ex doctests); bind errors those of
// its subscription_check_filters trigger.
func TestFilterErrors(t *testing.T) {
	parse := map[string]string{
		"subject=foo.hey":  "Error parsing `filter` params: [\"foo\", \"hey\"]",
		"undefined":        "Error parsing `filter` params: [\"undefined\"]",
		"id=eq":            "Error parsing `filter` params: [\"eq\"]",
		"id=in.1,2":        "Error parsing `filter` params: `in` filter value must be wrapped by parentheses",
		"id=eq.1,,id=eq.2": "Error parsing `filter` params: filter must not contain empty segments (check for extra commas)",
	}
	for in, want := range parse {
		if _, err := parseFilter(in); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", in, err, want)
		}
	}
	bind := map[string]string{
		"nope=eq.1":      "invalid column for filter nope",
		"id=eq.abc":      `invalid input syntax for type bigint: "abc"`,
		"id=gt.1.5":      `invalid input syntax for type bigint: "1.5"`,
		"price=gt.1.5e3": "",
		"id=in.(1,x)":    `invalid input syntax for type bigint: "x"`,
		"owner=eq.12":    `invalid input syntax for type uuid: "12"`,
		"id=like.1%":     "operator like requires a text-compatible column type, got bigint",
		"id=is.true":     "is true filter requires a boolean column, got bigint",
		"done=is.maybe":  "invalid value for is filter: must be null, true, false, or unknown",
		"title=match.(":  "invalid regular expression for match filter",
		"id=in.(" + strings.Repeat("1,", 100) + "1)": "too many values for `in` filter. Maximum 100",
	}
	for in, want := range bind {
		f, err := parseFilter(in)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if err := bindTest(f); want == "" && err != nil || want != "" && (err == nil || !strings.HasPrefix(err.Error(), want)) {
			t.Errorf("%s: %v, want %s", in, err, want)
		}
	}
}

// sqlText skips decoding a JSON string without escapes; with or without, the text is the
// decoded string.
func TestSQLTextDecodesStrings(t *testing.T) {
	for _, tc := range []struct {
		raw, want string
		null      bool
	}{
		{`"abc"`, "abc", false},
		{`"ăîșț – ok"`, "ăîșț – ok", false},
		{`"a\"b\\c\u0041\n"`, "a\"b\\cA\n", false},
		{`""`, "", false},
		{`12.50`, "12.50", false},
		{`true`, "true", false},
		{`null`, "", true},
		{``, "", true},
	} {
		got, null := sqlText(json.RawMessage(tc.raw))
		if got != tc.want || null != tc.null {
			t.Errorf("sqlText(%s) = %q, %v; want %q, %v", tc.raw, got, null, tc.want, tc.null)
		}
	}
}
