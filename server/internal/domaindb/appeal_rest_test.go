package domaindb

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"casus/server/internal/authn"
	"casus/server/internal/testutil/testserver"
)

// The same rules through the running server's /rest/v1, as a browser would send them: a
// graded submission's score cannot be PATCHed by its owner or by a moderator, a student
// cannot decide an appeal, a moderator can.
func TestAppealAndGradeOverREST(t *testing.T) {
	srv := testserver.Start(t, nil)
	ctx := context.Background()
	const student, moderator = "aaaaaaaa-0000-4000-8000-0000000000a1", "aaaaaaaa-0000-4000-8000-0000000000a2"
	var graded, blocked, appeal string
	err := srv.Deps.Owner.QueryRow(ctx, `
		with u as (insert into auth.users (id, email, aud, role) values ($1, 's@x.ro', 'authenticated', 'authenticated'),
		             ($2, 'm@x.ro', 'authenticated', 'authenticated') returning id),
		     p as (insert into public.user_profiles (id, email, name, username, role)
		             select id, id::text || '@x.ro', 'Nume', 'u' || right(replace(id::text, '-', ''), 12), case when id = $2::uuid then 'moderator' else 'user' end from u returning id),
		     c as (insert into public.cases (case_code, title, level, week_number, domain, verified) values ('CIV1REST', 'Caz 1: REST', 'Mediu', 1, 'civil', true) returning id),
		     g as (insert into public.case_submissions (user_id, case_id, submission_text, status, score, score_value, feedback_text, feedback_at)
		             select $1, id, 'text notat', 'graded', '40/100', 40, 'slab', now() from c returning id),
		     b as (insert into public.case_submissions (user_id, case_id, submission_text, ai_probability, ai_decision, ai_checked_at)
		             select $1, id, 'text blocat', 91, 'FAILED', now() from c returning id)
		select (select id::text from g), (select id::text from b), (select count(*) from p)::text`, student, moderator).Scan(&graded, &blocked, new(string))
	if err != nil {
		t.Fatal(err)
	}
	token := func(sub string) string {
		c := &authn.Claims{Role: authn.RoleAuthenticated}
		c.Subject = sub
		c.ExpiresAt = jwt.NewNumericDate(time.Now().Add(time.Hour))
		tok, err := srv.Deps.Keys.Sign(c)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	call := func(method, path, sub string, body any) (int, string) {
		t.Helper()
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, srv.URL+"/rest/v1/"+path, bytes.NewReader(b))
		req.Header.Set("apikey", srv.Deps.Keys.AnonKey)
		req.Header.Set("Authorization", "Bearer "+token(sub))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Prefer", "return=representation")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		if res.StatusCode >= 500 {
			t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, raw)
		}
		return res.StatusCode, string(raw)
	}

	for _, sub := range []string{student, moderator} {
		for _, body := range []map[string]any{{"score": "99/100"}, {"score_value": 99}, {"status": "submitted"}, {"ai_decision": "RELEASED"}} {
			if code, raw := call("PATCH", "case_submissions?id=eq."+graded, sub, body); code < 400 && raw != "[]" {
				t.Errorf("PATCH %v by %s: %d %s", body, sub, code, raw)
			}
		}
	}
	var score string
	if err := srv.Deps.Owner.QueryRow(ctx, `select score || ' ' || status from public.case_submissions where id = $1`, graded).Scan(&score); err != nil || score != "40/100 graded" {
		t.Fatalf("after PATCHes: %q %v", score, err)
	}

	// The owner asks; the student cannot decide (403), the moderator can.
	code, raw := call("POST", "rpc/request_human_review", student, map[string]string{"p_submission_id": blocked})
	if code != 200 {
		t.Fatalf("request: %d %s", code, raw)
	}
	var row struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(raw), &row); err != nil || row.ID == "" {
		t.Fatalf("request answer: %s", raw)
	}
	appeal = row.ID
	if code, raw := call("POST", "rpc/appeal_release", student, map[string]string{"p_appeal_id": appeal}); code != 403 {
		t.Fatalf("student releases: %d %s", code, raw)
	}
	if code, raw := call("POST", "rpc/appeal_release", moderator, map[string]string{"p_appeal_id": appeal}); code != 200 {
		t.Fatalf("moderator releases: %d %s", code, raw)
	}
	var decision string
	if err := srv.Deps.Owner.QueryRow(ctx, `select ai_decision from public.case_submissions where id = $1`, blocked).Scan(&decision); err != nil || decision != "RELEASED" {
		t.Fatalf("decision: %q %v", decision, err)
	}
}
