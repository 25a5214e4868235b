package gotrue_test

import (
	"net/http"
	"strings"
	"testing"
)

// The OAuth 2.1 server's admin API, as GoTrue's /admin/oauth/clients: the secret is shown
// on registration and regeneration only, updates are partial, deletion hides the client,
// lists paginate, and redirect URIs are checked by GoTrue's rules.
func TestOAuthClientsAdminAPI(t *testing.T) {
	e := start(t, nil)
	svc := e.srv.Deps.Keys.ServiceKey
	base := "/auth/v1/admin/oauth/clients"
	cr := e.do("POST", base, map[string]any{"client_name": "Aplicația mea", "redirect_uris": []string{"https://app.example.ro/cb", "http://localhost:3000/cb"},
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"}}, svc)
	id, _ := cr.body["client_id"].(string)
	secret, _ := cr.body["client_secret"].(string)
	if cr.status != 201 || id == "" || secret == "" || cr.body["client_type"] != "confidential" || cr.body["token_endpoint_auth_method"] != "client_secret_basic" ||
		cr.body["registration_type"] != "manual" || len(cr.body["redirect_uris"].([]any)) != 2 || cr.body["response_types"].([]any)[0] != "code" {
		t.Fatalf("create: %d %v", cr.status, cr.body)
	}
	g := e.do("GET", base+"/"+id, nil, svc)
	if _, shown := g.body["client_secret"]; g.status != 200 || g.body["client_name"] != "Aplicația mea" || shown {
		t.Fatalf("get: %d %v", g.status, g.body)
	}
	up := e.do("PUT", base+"/"+id, map[string]any{"logo_uri": "https://app.example.ro/logo.png"}, svc)
	if up.status != 200 || up.body["logo_uri"] != "https://app.example.ro/logo.png" || up.body["client_name"] != "Aplicația mea" {
		t.Fatalf("partial update: %d %v", up.status, up.body)
	}
	re := e.do("POST", base+"/"+id+"/regenerate_secret", nil, svc)
	if re.status != 200 || re.body["client_secret"] == nil || re.body["client_secret"] == secret {
		t.Fatalf("regenerate: %d %v", re.status, re.body)
	}
	// A public client has no secret and none can be made for it.
	pub := e.do("POST", base, map[string]any{"redirect_uris": []string{"myapp://callback"}, "token_endpoint_auth_method": "none"}, svc)
	if _, has := pub.body["client_secret"]; pub.status != 201 || has || pub.body["client_type"] != "public" {
		t.Fatalf("public client: %d %v", pub.status, pub.body)
	}
	e.expectErr(e.do("POST", base+"/"+pub.body["client_id"].(string)+"/regenerate_secret", nil, svc), 400, "validation_failed")

	// Pagination: three clients, two per page.
	e.do("POST", base, map[string]any{"redirect_uris": []string{"https://third.example.ro/cb"}}, svc)
	p1 := e.do("GET", base+"?page=1&per_page=2", nil, svc)
	if p1.status != 200 || len(p1.body["clients"].([]any)) != 2 || p1.header.Get("X-Total-Count") != "3" ||
		!strings.Contains(p1.header.Get("Link"), `rel="next"`) || !strings.Contains(p1.header.Get("Link"), `page=2`) {
		t.Fatalf("page 1: %v %v", p1.body, p1.header)
	}
	if p2 := e.do("GET", base+"?page=2&per_page=2", nil, svc); len(p2.body["clients"].([]any)) != 1 || strings.Contains(p2.header.Get("Link"), "next") {
		t.Fatalf("page 2: %v %v", p2.body, p2.header)
	}

	// Delete: 204, then the client is gone everywhere.
	req, _ := http.NewRequest("DELETE", e.srv.URL+base+"/"+id, nil)
	req.Header.Set("apikey", svc)
	req.Header.Set("Authorization", "Bearer "+svc)
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != 204 {
		t.Fatalf("delete: %v %v", err, res)
	}
	res.Body.Close()
	e.expectErr(e.do("GET", base+"/"+id, nil, svc), 404, "oauth_client_not_found")
	e.expectErr(e.do("PUT", base+"/"+id, map[string]any{"client_name": "x"}, svc), 404, "oauth_client_not_found")
	if l := e.do("GET", base, nil, svc); len(l.body["clients"].([]any)) != 2 {
		t.Fatalf("list after delete: %v", l.body)
	}

	// Errors, with GoTrue's messages.
	msg := func(r resp, status int, code, want string) {
		t.Helper()
		e.expectErr(r, status, code)
		if r.body["msg"] != want {
			t.Fatalf("want %q, got %v", want, r.body["msg"])
		}
	}
	msg(e.do("POST", base, map[string]any{"client_name": "Invalid Client", "redirect_uris": []string{}}, svc), 400, "validation_failed", "400: redirect_uris is required")
	msg(e.do("POST", base, map[string]any{"redirect_uris": []string{"http://evil.example.com/cb"}}, svc), 400, "validation_failed",
		"400: invalid redirect_uri 'http://evil.example.com/cb': HTTP scheme only allowed for localhost")
	msg(e.do("POST", base, map[string]any{"redirect_uris": []string{"javascript://x/alert(1)"}}, svc), 400, "validation_failed",
		"400: invalid redirect_uri 'javascript://x/alert(1)': scheme 'javascript' is not allowed for security reasons")
	msg(e.do("POST", base, map[string]any{"redirect_uris": []string{"https://a.example.ro/cb#frag"}}, svc), 400, "validation_failed",
		"400: invalid redirect_uri 'https://a.example.ro/cb#frag': fragment not allowed in redirect URI")
	msg(e.do("POST", base, map[string]any{"redirect_uris": []string{"/relative"}}, svc), 400, "validation_failed",
		"400: invalid redirect_uri '/relative': must have scheme and host")
	msg(e.do("POST", base, map[string]any{"redirect_uris": []string{"https://a.example.ro/cb"}, "grant_types": []string{"implicit"}}, svc), 400, "validation_failed",
		"400: grant_types must only contain 'authorization_code' and/or 'refresh_token'")
	keep := pub.body["client_id"].(string)
	msg(e.do("PUT", base+"/"+keep, map[string]any{"redirect_uris": []string{}}, svc), 400, "validation_failed", "redirect_uris cannot be empty")
	msg(e.do("PUT", base+"/"+keep, map[string]any{}, svc), 400, "validation_failed", "No fields provided for update")
	msg(e.do("GET", base+"/not-a-uuid", nil, svc), 400, "validation_failed", "invalid client_id format")
	msg(e.do("GET", base+"/00000000-0000-0000-0000-000000000000", nil, svc), 404, "oauth_client_not_found", "OAuth client not found")
	e.expectErr(e.do("POST", base, map[string]any{"redirect_uris": []string{"https://a.example.ro/cb"}}, e.srv.Deps.Keys.AnonKey), 403, "not_admin")
	e.expectErr(e.do("GET", base, nil, ""), 401, "no_authorization")
}
