package aitest

import (
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, f *Fake, body string) *http.Response {
	t.Helper()
	res, err := http.Post(f.URL+"/v1/messages", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

// A load run's fake keeps only the requests asked for, and answers the same whether it
// keeps them or not.
func TestRecordAtMostKeepsTheLatestRequests(t *testing.T) {
	f, err := Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, m := range []string{"m1", "m2", "m3"} {
		post(t, f, `{"model":"`+m+`","messages":[{"role":"user","content":"x"}]}`)
	}
	if n := len(f.Requests()); n != 3 {
		t.Fatalf("by default every request is kept: %d of 3", n)
	}
	f.RecordAtMost(2)
	post(t, f, `{"model":"m4","messages":[]}`)
	post(t, f, `{"model":"m5","messages":[]}`)
	post(t, f, `{"model":"m6","messages":[]}`)
	got := f.Requests()
	if len(got) != 2 || got[0]["model"] != "m5" || got[1]["model"] != "m6" {
		t.Fatalf("kept %v, want the requests of m5 and m6", got)
	}

	f.RecordAtMost(0)
	if n := len(f.Requests()); n != 0 {
		t.Fatalf("recording nothing still lists %d requests", n)
	}
	res := post(t, f, `{"model":"m7","stream":true,"system":"x","messages":[{"role":"user","content":"y"}]}`)
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("unrecorded stream request answered as %q", ct)
	}
	if n := len(f.Requests()); n != 0 {
		t.Fatalf("recording nothing kept %d requests", n)
	}
}
