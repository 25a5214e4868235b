package gotrue_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"casus/server/internal/config"
)

// A trigger on auth.users that refuses an account with RAISE (as the study app's profile
// trigger does for a taken username) refuses the sign-up with its own message, and a
// confirmed address is refused in the same words (the answer must not tell it is taken).
// Any other database failure stays an opaque 500. Core only: the trigger is the test's.
func TestSignupRefusedByTrigger(t *testing.T) {
	e := start(t, func(c *config.Config) { c.App = "none" })
	e.signupConfirmed("confirmed@example.ro", "secret1")
	ctx := context.Background()
	if _, err := e.srv.Deps.Owner.Exec(ctx, `
		create function public.refuse_signup() returns trigger language plpgsql as $$
		begin
		  if new.raw_user_meta_data ->> 'mode' = 'refuse' then
		    raise exception 'Numele ales nu este permis' using errcode = '23514';
		  elsif new.raw_user_meta_data ->> 'mode' = 'crash' then
		    perform 1 / 0;
		  end if;
		  return null;
		end $$;
		create trigger refuse_signup after insert on auth.users for each row execute function public.refuse_signup()`); err != nil {
		t.Fatal(err)
	}
	signup := func(addr, mode string) (int, string) {
		status, _, b := e.raw("POST", "/auth/v1/signup", map[string]any{"email": addr, "password": "another-pw", "data": map[string]any{"mode": mode}})
		return status, string(b)
	}
	want := `{"code":400,"error_code":"validation_failed","msg":"Numele ales nu este permis"}`
	for _, addr := range []string{"fresh@example.ro", "confirmed@example.ro"} {
		status, body := signup(addr, "refuse")
		if status != http.StatusBadRequest || strings.TrimSpace(body) != want {
			t.Fatalf("%s: %d %s", addr, status, body)
		}
	}
	var n int
	if err := e.srv.Deps.Owner.QueryRow(ctx, `select count(*) from auth.users where email = 'fresh@example.ro'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("a refused sign-up left %d accounts (%v)", n, err)
	}
	if status, body := signup("fresh@example.ro", "crash"); status != http.StatusInternalServerError || strings.Contains(body, "division") {
		t.Fatalf("crash: %d %s", status, body)
	}
	for _, addr := range []string{"fresh@example.ro", "confirmed@example.ro"} {
		if status, body := signup(addr, "ok"); status != http.StatusOK {
			t.Fatalf("%s allowed: %d %s", addr, status, body)
		}
	}
	// A magic link for a known address judges the metadata as for a new one.
	status, _, b := e.raw("POST", "/auth/v1/otp", map[string]any{"email": "confirmed@example.ro", "data": map[string]any{"mode": "refuse"}})
	if status != http.StatusBadRequest || strings.TrimSpace(string(b)) != want {
		t.Fatalf("otp of a known address: %d %s", status, b)
	}
}
