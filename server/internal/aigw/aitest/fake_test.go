package aitest

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"
)

// The fake keeps only the most recent request bodies, so a long load run does not grow it
// without bound; the last ones are there, in order.
func TestRequestsRecordIsBounded(t *testing.T) {
	f, err := Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const n = maxRecorded + 10
	for i := range n {
		body := fmt.Sprintf(`{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"q%d"}]}`, i)
		res, err := http.Post(f.URL+"/v1/messages", "application/json", bytes.NewBufferString(body))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	got := f.Requests()
	if len(got) > maxRecorded || len(got) < maxRecorded/2 {
		t.Fatalf("%d requests recorded after %d, want at most %d and at least %d", len(got), n, maxRecorded, maxRecorded/2)
	}
	last := got[len(got)-1]["messages"].([]any)[0].(map[string]any)["content"]
	if last != fmt.Sprintf("q%d", n-1) {
		t.Fatalf("the last recorded request is %v", last)
	}
}
