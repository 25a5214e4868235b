package postgrest

import (
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strconv"
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
	// Headers are response headers a RAISE SQLSTATE 'PGRST' asked for.
	Headers map[string]string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Render implements httpx.Renderer.
func (e *Error) Render(w http.ResponseWriter, _ *http.Request) {
	for k, v := range e.Headers {
		w.Header().Set(k, v)
	}
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
// Two kinds of raised errors are PostgREST's own: SQLSTATE 'PGRST' carries a JSON error body
// in MESSAGE and the status and headers in DETAIL; 'PTnnn' answers with status nnn.
func fromPG(err error, authenticated bool) error {
	if connectionLost(err) {
		return errUnavailable
	}
	var pg *pgconn.PgError
	if !errors.As(err, &pg) {
		return err
	}
	if pg.Code == "PGRST" {
		return raisedError(pg)
	}
	e := &Error{Code: pg.Code, Message: pg.Message}
	if pg.Detail != "" {
		e.Details = pg.Detail
	}
	if pg.Hint != "" {
		e.Hint = pg.Hint
	}
	e.Status = pgStatus(pg.Code, authenticated)
	return e
}

// internalSQLState reports the classes whose messages describe the database's
// internals rather than the request: insufficient resources (53, e.g. out of memory),
// program limits (54, e.g. the parser's "memory exhausted", stack depth), system errors
// (58) and internal errors (XX).
func internalSQLState(c string) bool {
	switch c[:min(2, len(c))] {
	case "53", "54", "58", "XX":
		return true
	}
	return false
}

// aliasNames maps the aliases of a generated statement (_t0 for the request's relation,
// _tN for embeds, with _i/_o suffixes for their existence and order subqueries) to the
// relations' names, so error messages name tables, not aliases. Other aliases (of
// subqueries and results) become the request's relation.
type aliasNames struct {
	root  string
	names map[string]string // embed aliases
}

var internalAlias = regexp.MustCompile(`\b_(?:t[0-9]+(?:_[io])?|j_t[0-9]+|e[0-9]+|r|c|m|p|j|v|ins|row|new)\b`)

func (a *aliasNames) replace(s string) string {
	if !strings.Contains(s, "_") {
		return s
	}
	return internalAlias.ReplaceAllStringFunc(s, func(alias string) string {
		base := strings.TrimSuffix(strings.TrimSuffix(alias, "_i"), "_o")
		if n, ok := a.names[base]; ok {
			return n
		}
		return a.root
	})
}

// pgStatus is PostgREST's SQLSTATE → HTTP status table; anything it does not list is 400.
func pgStatus(c string, authenticated bool) int {
	switch {
	case c == "23503", c == "23505":
		return http.StatusConflict
	case c == "25006":
		return http.StatusMethodNotAllowed
	case c == "42501":
		if !authenticated {
			return http.StatusUnauthorized
		}
		return http.StatusForbidden
	case c == "42883", c == "42P01":
		return http.StatusNotFound
	case c == "42P17": // infinite recursion (typically in a policy)
		return http.StatusInternalServerError
	case c == "P0001": // RAISE EXCEPTION's default
		return http.StatusBadRequest
	case c == "53400":
		return http.StatusInternalServerError
	case len(c) == 5 && strings.HasPrefix(c, "PT"):
		// RAISE SQLSTATE 'PT402': the last three characters are the status.
		if n, err := strconv.Atoi(c[2:]); err == nil && n >= 100 && n <= 599 {
			return n
		}
		return http.StatusInternalServerError
	}
	switch c[:min(2, len(c))] {
	case "08", "53":
		return http.StatusServiceUnavailable
	case "0L", "0P", "28":
		return http.StatusForbidden
	case "09", "25", "2D", "38", "39", "3B", "40", "54", "55", "57", "58", "F0", "HV", "P0", "XX":
		return http.StatusInternalServerError
	}
	return http.StatusBadRequest
}

// raisedError reads RAISE SQLSTATE 'PGRST' USING MESSAGE = '{"code":..,"message":..,
// "details":..,"hint":..}', DETAIL = '{"status":..,"headers":{..}}' (code, message, status
// and headers are required), or answers PostgREST's PGRST121 when the JSON is not that.
func raisedError(pg *pgconn.PgError) error {
	const msgHint = "MESSAGE must be a JSON object with obligatory keys: 'code', 'message' and optional keys: 'details', 'hint'."
	const detHint = "DETAIL must be a JSON object with obligatory keys: 'status', 'headers' and optional key: 'status_text'."
	bad := func(details, hint string) error {
		return &Error{Status: http.StatusInternalServerError, Code: "PGRST121", Message: "Could not parse JSON in the RAISE SQLSTATE 'PGRST' error", Details: details, Hint: hint}
	}
	var msg struct {
		Code    *string `json:"code"`
		Message *string `json:"message"`
		Details *string `json:"details"`
		Hint    *string `json:"hint"`
	}
	if err := json.Unmarshal([]byte(pg.Message), &msg); err != nil || msg.Code == nil || msg.Message == nil {
		return bad("Invalid JSON value for MESSAGE: '"+pg.Message+"'", msgHint)
	}
	if pg.Detail == "" {
		return bad("DETAIL is missing in the RAISE statement", detHint)
	}
	var det struct {
		Status     *int               `json:"status"`
		StatusText string             `json:"status_text"`
		Headers    *map[string]string `json:"headers"`
	}
	if err := json.Unmarshal([]byte(pg.Detail), &det); err != nil || det.Status == nil || det.Headers == nil || *det.Status < 100 || *det.Status > 599 {
		return bad("Invalid JSON value for DETAIL: '"+pg.Detail+"'", detHint)
	}
	e := &Error{Status: *det.Status, Code: *msg.Code, Message: *msg.Message}
	if msg.Details != nil {
		e.Details = *msg.Details
	}
	if msg.Hint != nil {
		e.Hint = *msg.Hint
	}
	e.Headers = *det.Headers
	return e
}
