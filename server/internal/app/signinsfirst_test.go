package app

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// The data API's and the AI gateway's requests pass through the sign-in yield; auth,
// realtime and the web app's files do not.
func TestOnlyDataAndAIRequestsYieldToSignIns(t *testing.T) {
	var yielded []string
	yield := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			yielded = append(yielded, r.URL.Path)
			next.ServeHTTP(w, r)
		})
	}
	served := 0
	h := signInsFirst(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { served++ }), yield)
	for path, want := range map[string]bool{
		"/rest/v1/cases":                  true,
		"/rest/v1/rpc/search_cases":       true,
		"/ai/v1/messages":                 true,
		"/auth/v1/token":                  false,
		"/auth/v1/user":                   false,
		"/realtime/v1/websocket":          false,
		"/":                               false,
		"/assets/index.js":                false,
		"/rest/v1x":                       false,
		"/storage/v1/object/public/a.png": false,
	} {
		yielded = nil
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", path, nil))
		if got := len(yielded) == 1; got != want {
			t.Errorf("%s: yielded %v, want %v", path, got, want)
		}
	}
	if served != 10 {
		t.Fatalf("%d of 10 requests reached the handler", served)
	}
}
