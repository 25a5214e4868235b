package jsonx

import (
	"encoding/json"
	"testing"
)

// AppendString quotes exactly as encoding/json does, including \b and \f (short forms
// since Go 1.22), which one of the two escapers this replaced wrote as \u0008 and \u000c.
func TestAppendStringMatchesEncoder(t *testing.T) {
	all := make([]byte, 0, 128)
	for c := range 128 {
		all = append(all, byte(c))
	}
	for _, s := range []string{"", "plain", "q\"b\\s/", "<script>&amp;", "\x00\x1f\t\n\r", "\b\f", "ș ț ă î â",
		"\u2028\u2029", "bad\xffutf8\xc3", "emoji 😀", string(all), "\xed\xa0\x80surrogate"} {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); string(got) != string(want) {
			t.Errorf("%q: got %s want %s", s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("a\bb\fc<\u2028\xff")
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); string(got) != string(want) {
			t.Fatalf("%q: got %s want %s", s, got, want)
		}
	})
}
