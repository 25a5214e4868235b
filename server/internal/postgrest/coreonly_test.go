package postgrest_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"casus/server/internal/config"
	"casus/server/internal/testutil/testserver"
)

// CASUS_APP=none: the Supabase core serves a schema loaded by hand, with no restart, under
// RLS, and the study app's surfaces are not mounted.
func TestCoreWithoutTheStudyAppServesAHandMadeSchema(t *testing.T) {
	srv := testserver.Start(t, func(c *config.Config) { c.App = "none" })
	ctx := context.Background()
	get := func(path string) (int, []byte) {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("apikey", srv.Deps.Keys.AnonKey)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, b
	}
	if code, _ := get("/rest/v1/todos"); code != http.StatusNotFound {
		t.Fatalf("todos before it exists: %d", code)
	}
	// As an operator would with psql: a table, RLS on, a policy for anon.
	for _, q := range []string{
		"create table public.todos (id bigint generated always as identity primary key, task text not null, public boolean not null default false)",
		"alter table public.todos enable row level security",
		"create policy todos_public on public.todos for select to anon using (public)",
		"insert into public.todos (task, public) values ('visible', true), ('hidden', false)",
	} {
		if _, err := srv.Deps.Owner.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// The DDL notified the schema cache (pgrst_ddl_watch): no reload call, no restart.
	deadline := time.Now().Add(30 * time.Second)
	var code int
	var body []byte
	for code, body = get("/rest/v1/todos?select=task"); code != http.StatusOK && time.Now().Before(deadline); code, body = get("/rest/v1/todos?select=task") {
		time.Sleep(20 * time.Millisecond)
	}
	if code != http.StatusOK {
		t.Fatalf("todos never served: %d %s", code, body)
	}
	var rows []map[string]string
	if err := json.Unmarshal(body, &rows); err != nil || len(rows) != 1 || rows[0]["task"] != "visible" {
		t.Fatalf("anon read %s (%v), want only the public row", body, err)
	}
	// The study app is not there: no web app, no AI gateway, no study tables.
	if code, _ := get("/"); code != http.StatusNotFound {
		t.Fatalf("web app mounted without the study app: %d", code)
	}
	if code, _ := get("/rest/v1/cases"); code != http.StatusNotFound {
		t.Fatalf("study table served without the study app: %d", code)
	}
	req, _ := http.NewRequest("POST", srv.URL+"/ai/v1/messages", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound && res.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("AI gateway mounted without the study app: %d", res.StatusCode)
	}
}
