package postgrest

import (
	"errors"
	"net/http"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"casus/server/internal/httpx"
)

// Error is PostgREST's error body {code, message, details, hint} with its status.
type Error struct {
	Status  int
	Code    string
	Message string
	Details any
	Hint    any
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Render implements httpx.Renderer.
func (e *Error) Render(w http.ResponseWriter, _ *http.Request) {
	httpx.WriteJSON(w, e.Status, map[string]any{"code": e.Code, "message": e.Message, "details": e.Details, "hint": e.Hint})
}

func apiErr(status int, code, msg, details string) *Error {
	e := &Error{Status: status, Code: code, Message: msg}
	if details != "" {
		e.Details = details
	}
	return e
}

// fromPG maps a database error to PostgREST's status table (one place, by SQLSTATE).
func fromPG(err error, authenticated bool) error {
	var pg *pgconn.PgError
	if !errors.As(err, &pg) {
		return err
	}
	e := &Error{Code: pg.Code, Message: pg.Message}
	if pg.Detail != "" {
		e.Details = pg.Detail
	}
	if pg.Hint != "" {
		e.Hint = pg.Hint
	}
	c := pg.Code
	switch {
	case c == "23503", c == "23505":
		e.Status = http.StatusConflict
	case c == "25006":
		e.Status = http.StatusMethodNotAllowed
	case c == "42501":
		e.Status = http.StatusForbidden
		if !authenticated {
			e.Status = http.StatusUnauthorized
		}
	case c == "42883", c == "42P01":
		e.Status = http.StatusNotFound
	case c == "P0001":
		e.Status = http.StatusBadRequest
	case c == "57014":
		e.Status = http.StatusInternalServerError // statement timeout, as PostgREST
	case strings.HasPrefix(c, "08"), strings.HasPrefix(c, "53"):
		e.Status = http.StatusServiceUnavailable
	case strings.HasPrefix(c, "54"):
		e.Status = http.StatusRequestEntityTooLarge
	case strings.HasPrefix(c, "0L"), strings.HasPrefix(c, "0P"), strings.HasPrefix(c, "28"):
		e.Status = http.StatusForbidden
	case strings.HasPrefix(c, "22"), strings.HasPrefix(c, "23"), strings.HasPrefix(c, "42"), strings.HasPrefix(c, "P0"):
		e.Status = http.StatusBadRequest
	default:
		e.Status = http.StatusInternalServerError
	}
	return e
}
