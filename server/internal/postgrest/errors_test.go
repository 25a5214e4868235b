package postgrest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestStatusTable pins PostgREST's SQLSTATE → HTTP table: only P0001 of the PL/pgSQL
// class is 400, and codes the table does not list are 400 too.
func TestStatusTable(t *testing.T) {
	for code, want := range map[string]int{
		"08006": 503, "09000": 500, "0L000": 403, "0P000": 403, "23503": 409, "23505": 409, "23502": 400, "23514": 400,
		"25006": 405, "25001": 500, "28000": 403, "2D000": 500, "38000": 500, "39000": 500, "3B000": 500, "40001": 500,
		"53400": 500, "53300": 503, "54001": 500, "55P03": 500, "57014": 500, "58030": 500, "F0000": 500, "HV000": 500,
		"P0001": 400, "P0002": 500, "P0003": 500, "P0004": 500, "XX000": 500, "42883": 404, "42P01": 404, "42P17": 500,
		"42703": 400, "22P02": 400, "21000": 400, "PT402": 402, "PT418": 418, "PTabc": 500, "PT099": 500,
	} {
		if got := pgStatus(code, true); got != want {
			t.Errorf("%s: %d, want %d", code, got, want)
		}
	}
	if pgStatus("42501", false) != 401 || pgStatus("42501", true) != 403 {
		t.Error("42501 must be 401 anonymous, 403 with a user")
	}
}

func TestRaisedPGRST(t *testing.T) {
	get := func(msg, detail string) *Error {
		var e *Error
		if !errors.As(fromPG(&pgconn.PgError{Code: "PGRST", Message: msg, Detail: detail}, true), &e) {
			t.Fatal("not an API error")
		}
		return e
	}
	e := get(`{"code":"X1","message":"m","details":"d","hint":"h"}`, `{"status":409,"status_text":"Conflict","headers":{"X-A":"1"}}`)
	if e.Status != 409 || e.Code != "X1" || e.Message != "m" || e.Details != "d" || e.Hint != "h" || e.Headers["X-A"] != "1" {
		t.Fatalf("%+v", e)
	}
	e = get(`{"code":"X1","message":"m"}`, `{"status":400,"headers":{}}`)
	if e.Status != 400 || e.Details != nil || e.Hint != nil {
		t.Fatalf("optional keys: %+v", e)
	}
	for _, c := range [][2]string{
		{`not json`, `{"status":400,"headers":{}}`},
		{`{"message":"no code"}`, `{"status":400,"headers":{}}`},
		{`{"code":"X","message":"m","details":{"an":"object"}}`, `{"status":400,"headers":{}}`},
		{`{"code":"X","message":"m"}`, ``},
		{`{"code":"X","message":"m"}`, `{"status":400}`},
		{`{"code":"X","message":"m"}`, `{"headers":{}}`},
		{`{"code":"X","message":"m"}`, `{"status":42,"headers":{}}`},
		{`{"code":"X","message":"m"}`, `{"status":400,"headers":{"A":1}}`},
	} {
		if e := get(c[0], c[1]); e.Status != 500 || e.Code != "PGRST121" {
			t.Errorf("%s / %s: %+v", c[0], c[1], e)
		}
	}
}

// postgrestErrors are PostgREST's own texts for the errors Casus answers, copied from
// src/library/PostgREST/Error.hs (PostgREST main, August 2026) with each interpolation
// written %s, and the status it gives them.
var postgrestErrors = []struct {
	code, message string
	status        int
}{
	{"PGRST001", "Database client error. Retrying the connection.", 503},
	{"PGRST101", "Cannot use the %s method on RPC", 405},
	{"PGRST102", "Empty or invalid json", 400}, // ApiRequest/Payload.hs
	{"PGRST102", "All object keys must match", 400},
	{"PGRST103", "Requested range not satisfiable", 416},
	{"PGRST105", "Filters must include all and only primary key columns with 'eq' operators", 405},
	{"PGRST106", "Invalid schema: %s", 406},
	{"PGRST107", "None of these media types are available: %s", 406},
	{"PGRST108", "'%s' is not an embedded resource in this request", 400},
	{"PGRST114", "limit/offset querystring parameters are not allowed for PUT", 400},
	{"PGRST115", "Payload values do not match URL in primary key column(s)", 400},
	{"PGRST116", "Cannot coerce the result to a single JSON object", 406},
	{"PGRST117", "Unsupported HTTP method: %s", 405},
	{"PGRST118", "A related order on '%s' is not possible", 400},
	{"PGRST120", "Bad operator on the '%s' embedded resource", 400},
	{"PGRST121", `Could not parse JSON in the "RAISE SQLSTATE 'PGRST'" error`, 500},
	{"PGRST122", "Invalid preferences given with handling=strict", 400},
	{"PGRST123", "Use of aggregate functions is not allowed", 400},
	{"PGRST124", "Query result exceeds max-affected preference constraint", 400},
	{"PGRST200", "Could not find a relationship between '%s' and '%s' in the schema cache", 400},
	{"PGRST201", "Could not embed because more than one relationship was found for '%s' and '%s'", 300},
	{"PGRST202", "Could not find the function %s.%s%s in the schema cache", 404},
	{"PGRST203", "Could not choose the best candidate function between: %s", 300},
	{"PGRST204", "Could not find the '%s' column of '%s' in the schema cache", 400},
	{"PGRST205", "Could not find the table '%s.%s' in the schema cache", 404},
	{"PGRST301", "JWT cryptographic operation failed", 401},
	{"PGRST303", "JWT expired", 401},
}

// TestErrorCatalogueIsPostgRESTs lists the catalogue: every entry said to be PostgREST's
// has PostgREST's message and status, and the others say where their text comes from.
func TestErrorCatalogueIsPostgRESTs(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range catalogue {
		key := d.Code + " " + d.Message
		if seen[key] {
			t.Errorf("%s listed twice", key)
		}
		seen[key] = true
		switch d.Origin {
		case fromPostgREST:
			found := false
			for _, p := range postgrestErrors {
				if p.code == d.Code && p.message == d.Message {
					found = true
					if p.status != d.Status {
						t.Errorf("%s %q: status %d, PostgREST gives %d", d.Code, d.Message, d.Status, p.status)
					}
				}
			}
			if !found {
				t.Errorf("%s %q is not PostgREST's text", d.Code, d.Message)
			}
		case fromPostgRESTv12, fromSupabase, fromCasus:
			t.Logf("%s %q: not in PostgREST's current Error.hs (origin %d)", d.Code, d.Message, d.Origin)
		default:
			t.Errorf("%s: unknown origin", d.Code)
		}
	}
	// Every PostgREST error Casus can answer is in the catalogue.
	for _, p := range postgrestErrors {
		if !seen[p.code+" "+p.message] {
			t.Errorf("%s %q missing from the catalogue", p.code, p.message)
		}
	}
}

// TestErrorsAreBuiltFromTheCatalogue: no code outside errors.go builds an *Error itself.
func TestErrorsAreBuiltFromTheCatalogue(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f == "errors.go" || strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(src), "&Error{") || strings.Contains(string(src), "Error{Status") {
			t.Errorf("%s builds an *Error outside the catalogue", f)
		}
	}
}
