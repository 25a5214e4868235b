package db

import (
	"encoding/json"
	"testing"
	"testing/quick"
)

// The request.headers setting must be exactly what encoding/json would produce: RLS
// policies and functions parse it with PostgreSQL's json input.
func TestHeadersJSONMatchesEncodingJSON(t *testing.T) {
	cases := []map[string]string{
		nil,
		{},
		{"accept": "*/*", "user-agent": "casus/1.0 (X11; Linux)"},
		{"x-q": `a"b\c`, "x-ctl": "\x00\x01\t\n\r\x1f\x7f\b\f", "x-html": "<script>&amp;</script>"},
		{"x-utf8": "Spețe — Împăcare ✓ 🙂", "x-bad": "a\xffb\xc3", "x-sep": "\u2028\u2029"},
		{"b": "2", "a": "1", "c": ""},
	}
	check := func(m map[string]string) bool {
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if m == nil {
			want = []byte("{}") // roleSetup sends an empty object for no headers
		}
		got := appendJSONObject(nil, m)
		if string(got) != string(want) {
			t.Errorf("appendJSONObject(%.300q)\n got %.300s\nwant %.300s", m, got, want)
			return false
		}
		return true
	}
	for _, m := range cases {
		check(m)
	}
	if err := quick.Check(check, &quick.Config{MaxCount: 2000}); err != nil {
		t.Error(err)
	}
}
