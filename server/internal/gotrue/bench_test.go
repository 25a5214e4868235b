package gotrue_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"casus/server/internal/app"
	"casus/server/internal/config"
	"casus/server/internal/testutil/testserver"
)

// BenchmarkGetUser measures GET /auth/v1/user through the whole handler chain
// (middleware, token check, the database round trip, the body) without the network:
//
//	go test ./server/internal/gotrue/ -run '^$' -bench GetUser -benchmem
func BenchmarkGetUser(b *testing.B) {
	srv := testserver.Start(b, func(c *config.Config) { c.MailerAutoconfirm = true })
	body, _ := json.Marshal(map[string]string{"email": "bench@example.ro", "password": "secret1"})
	req, _ := http.NewRequest("POST", srv.URL+"/auth/v1/signup", bytes.NewReader(body))
	req.Header.Set("apikey", srv.Deps.Keys.AnonKey)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	var s struct {
		AccessToken string `json:"access_token"`
	}
	_ = json.NewDecoder(res.Body).Decode(&s)
	res.Body.Close()
	h, closeServices, err := app.Handler(b.Context(), srv.Deps)
	if err != nil {
		b.Fatal(err)
	}
	defer closeServices()
	get := httptest.NewRequest("GET", "/auth/v1/user", nil)
	get.Header.Set("apikey", srv.Deps.Keys.AnonKey)
	get.Header.Set("Authorization", "Bearer "+s.AccessToken)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, get)
		if w.Code != 200 {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
}
