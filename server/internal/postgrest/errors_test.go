package postgrest

import (
	"errors"
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
