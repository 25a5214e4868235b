package postgrest

import (
	"encoding/json"
	"errors"
	"fmt"
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

// errDef is one entry of the catalogue: a code, its status and its message (a format
// filled with the request's names), and where the text comes from.
type errDef struct {
	Code    string
	Status  int
	Message string
	Origin  errOrigin
}

type errOrigin int

const (
	// fromPostgREST: the message is PostgREST's, word for word (src/library/PostgREST/Error.hs).
	fromPostgREST errOrigin = iota
	// fromPostgRESTv12: PostgREST v12's text for an error later versions dropped (PGRST119).
	fromPostgRESTv12
	// fromSupabase: the API gateway's answer in front of PostgREST on Supabase.
	fromSupabase
	// fromCasus: no PostgREST text exists (its parser's messages come from a parser
	// generator; the size limits are Casus's own); the code is the one PostgREST uses.
	fromCasus
)

// The catalogue: every error this API answers by itself is built from one of these
// (errors of the database pass through fromPG with PostgreSQL's own code and text).
var (
	defQueryParam         = errDef{"PGRST100", 400, "%s", fromCasus}
	defRPCMethod          = errDef{"PGRST101", 405, "Cannot use the %s method on RPC", fromPostgREST}
	defInvalidJSON        = errDef{"PGRST102", 400, "Empty or invalid json", fromPostgREST}
	defKeysMismatch       = errDef{"PGRST102", 400, "All object keys must match", fromPostgREST}
	defBodyTooLarge       = errDef{"PGRST102", 413, "Request body too large", fromCasus}
	defBodyUnreadable     = errDef{"PGRST102", 400, "Could not read the request body", fromCasus}
	defInvalidNumber      = errDef{"PGRST102", 400, "\"%s\" is not a valid %s", fromCasus}
	defInvalidRange       = errDef{"PGRST103", 416, "Requested range not satisfiable", fromPostgREST}
	defInvalidFilters     = errDef{"PGRST105", 405, "Filters must include all and only primary key columns with 'eq' operators", fromPostgREST}
	defUnacceptableSchema = errDef{"PGRST106", 406, "Invalid schema: %s", fromPostgREST}
	defMediaType          = errDef{"PGRST107", 406, "None of these media types are available: %s", fromPostgREST}
	defNotEmbedded        = errDef{"PGRST108", 400, "'%s' is not an embedded resource in this request", fromPostgREST}
	defPutLimit           = errDef{"PGRST114", 400, "limit/offset querystring parameters are not allowed for PUT", fromPostgREST}
	defPutMatchingPK      = errDef{"PGRST115", 400, "Payload values do not match URL in primary key column(s)", fromPostgREST}
	defSingularity        = errDef{"PGRST116", 406, "Cannot coerce the result to a single JSON object", fromPostgREST}
	defUnsupportedMethod  = errDef{"PGRST117", 405, "Unsupported HTTP method: %s", fromPostgREST}
	defRelatedOrder       = errDef{"PGRST118", 400, "A related order on '%s' is not possible", fromPostgREST}
	defUnacceptableFilter = errDef{"PGRST120", 400, "Bad operator on the '%s' embedded resource", fromPostgREST}
	defRaiseParse         = errDef{"PGRST121", 500, "Could not parse JSON in the \"RAISE SQLSTATE 'PGRST'\" error", fromPostgREST}
	defInvalidPreferences = errDef{"PGRST122", 400, "Invalid preferences given with handling=strict", fromPostgREST}
	defAggregates         = errDef{"PGRST123", 400, "Use of aggregate functions is not allowed", fromPostgREST}
	defMaxAffected        = errDef{"PGRST124", 400, "Query result exceeds max-affected preference constraint", fromPostgREST}
	defNoRelationship     = errDef{"PGRST200", 400, "Could not find a relationship between '%s' and '%s' in the schema cache", fromPostgREST}
	defAmbiguousRel       = errDef{"PGRST201", 300, "Could not embed because more than one relationship was found for '%s' and '%s'", fromPostgREST}
	defNoFunction         = errDef{"PGRST202", 404, "Could not find the function %s.%s%s in the schema cache", fromPostgREST}
	defAmbiguousFunc      = errDef{"PGRST203", 300, "Could not choose the best candidate function between: %s", fromPostgREST}
	defNoColumn           = errDef{"PGRST204", 400, "Could not find the '%s' column of '%s' in the schema cache", fromPostgREST}
	defNoTable            = errDef{"PGRST205", 404, "Could not find the table '%s.%s' in the schema cache", fromPostgREST}
	defBadCrypto          = errDef{"PGRST301", 401, "JWT cryptographic operation failed", fromPostgREST}
	defJWTExpired         = errDef{"PGRST303", 401, "JWT expired", fromPostgREST}
	defNoAPIKey           = errDef{"PGRST301", 401, "No API key found in request", fromSupabase}
	defInvalidAPIKey      = errDef{"PGRST301", 401, "Invalid API key", fromSupabase}
	defRoleNotAllowed     = errDef{"PGRST301", 401, "%s", fromCasus}
	defUnavailable        = errDef{"PGRST001", 503, "Database client error. Retrying the connection.", fromPostgREST}
)

// catalogue lists the entries, for the test that checks them against PostgREST's texts.
var catalogue = []errDef{defQueryParam, defRPCMethod, defInvalidJSON, defKeysMismatch, defBodyTooLarge,
	defBodyUnreadable, defInvalidNumber, defInvalidRange, defInvalidFilters, defUnacceptableSchema, defMediaType,
	defNotEmbedded, defPutLimit, defPutMatchingPK, defSingularity, defUnsupportedMethod, defRelatedOrder,
	defUnacceptableFilter, defRaiseParse, defInvalidPreferences, defAggregates, defMaxAffected,
	defNoRelationship, defAmbiguousRel, defNoFunction, defAmbiguousFunc, defNoColumn, defNoTable, defBadCrypto, defJWTExpired,
	defNoAPIKey, defInvalidAPIKey, defRoleNotAllowed, defUnavailable}

// new builds the error; details and hint are "" (or nil) for none.
func (d errDef) new(details, hint any, args ...any) *Error {
	e := &Error{Status: d.Status, Code: d.Code, Message: d.Message}
	if len(args) > 0 {
		e.Message = fmt.Sprintf(d.Message, args...)
	}
	if s, ok := details.(string); !ok || s != "" {
		e.Details = details
	}
	if s, ok := hint.(string); !ok || s != "" {
		e.Hint = hint
	}
	return e
}

// The constructors, one per situation.

func errQueryParam(msg, details string) *Error { return defQueryParam.new(details, "", msg) }
func errFilterParse(what, details string) *Error {
	return errQueryParam(fmt.Sprintf("failed to parse filter (%s)", what), details)
}
func errUnknownOperator(op string) *Error { return errQueryParam("unknown operator "+op, "") }
func errEmbedFilter(embed string) *Error {
	return defUnacceptableFilter.new("Only is null or not is null filters are allowed on embedded resources", "", embed)
}
func errSpreadPlainColumns() *Error {
	return errQueryParam("spread embeds support plain columns only", "")
}

// errVolatileGet: GET calls only stable and immutable functions (PostgREST would run a
// volatile one read-only and let it fail when it writes; Casus refuses it up front).
func errVolatileGet() *Error {
	return defRPCMethod.new("The function is volatile: call it with POST", "", "GET")
}
func errRPCMethod(method string) *Error { return defRPCMethod.new("", "", method) }
func errInvalidJSON() *Error            { return defInvalidJSON.new("", "") }
func errKeysMismatch() *Error           { return defKeysMismatch.new("", "") }
func errBodyTooLarge() *Error           { return defBodyTooLarge.new("", "") }
func errBodyUnreadable() *Error         { return defBodyUnreadable.new("", "") }
func errInvalidNumber(val, what string) *Error {
	return defInvalidNumber.new("", "", val, what)
}
func errRangeNotSatisfiable(offset int, total int64) *Error {
	e := defInvalidRange.new(fmt.Sprintf("An offset of %d was requested, but there are only %d rows.", offset, total), "")
	e.Headers = map[string]string{"Content-Range": fmt.Sprintf("*/%d", total)}
	return e
}
func errPutFilters() *Error { return defInvalidFilters.new("", "") }
func errUnacceptableSchema(schema string, schemas []string) *Error {
	return defUnacceptableSchema.new("", "Only the following schemas are exposed: "+strings.Join(schemas, ", "), schema)
}

// errNotAcceptable lists the media types Accept asked for, as PostgREST does.
func errNotAcceptable(accept string) *Error {
	var types []string
	for _, part := range strings.Split(accept, ",") {
		if mt, _, _ := strings.Cut(part, ";"); strings.TrimSpace(mt) != "" {
			types = append(types, strings.TrimSpace(mt))
		}
	}
	return defMediaType.new("", "", strings.Join(types, ", "))
}
func errNotEmbedded(name string) *Error {
	return defNotEmbedded.new("", fmt.Sprintf("Verify that '%s' is included in the 'select' query parameter.", name), name)
}
func errPutLimit() *Error    { return defPutLimit.new("", "") }
func errPutMismatch() *Error { return defPutMatchingPK.new("", "") }
func errSingular(n int) *Error {
	return defSingularity.new(fmt.Sprintf("The result contains %d rows", n), "")
}
func errUnsupportedMethod(m string) *Error { return defUnsupportedMethod.new("", "", m) }
func errRelatedOrderNotToOne(name, origin, target string) *Error {
	return defRelatedOrder.new(fmt.Sprintf("'%s' and '%s' do not form a many-to-one or one-to-one relationship", origin, target), "", name)
}
func errRaiseParse(details, hint string) *Error { return defRaiseParse.new(details, hint) }
func errInvalidPreferences(invalid []string) *Error {
	return defInvalidPreferences.new("Invalid preferences: "+strings.Join(invalid, ", "), "")
}
func errMaxAffected(n int) *Error {
	return defMaxAffected.new(fmt.Sprintf("The query affects %d rows", n), "")
}

// errNoRelationship is PGRST200 with PostgREST's details; hint is "" for none (see
// noRelationship in relationships.go).
func errNoRelationship(parent, child, details, hint string) *Error {
	return defNoRelationship.new(details, hint, parent, child)
}

// errAmbiguousRelationship is PGRST201: details lists each relationship found
// (cardinality, embedding, relationship), hints names them as 'target!constraint'.
func errAmbiguousRelationship(parent, child string, details []map[string]string, hints []string) *Error {
	return defAmbiguousRel.new(details, "Try changing '"+child+"' to one of the following: "+strings.Join(hints, ", ")+
		". Find the desired relationship in the 'details' key.", parent, child)
}

// errNoFunction is PGRST202; params is " without parameters", "(a, b)" or "" (a body
// passed as the one unnamed parameter), details and hint as funcNotFound writes them.
func errNoFunction(schema, name, params, details, hint string) *Error {
	return defNoFunction.new(details, hint, schema, name, params)
}

// errAmbiguousFunction is PGRST203 naming each candidate with its parameters.
func errAmbiguousFunction(candidates []string) *Error {
	return defAmbiguousFunc.new("", "Try renaming the parameters or the function itself in the database so function overloading can be resolved",
		strings.Join(candidates, ", "))
}

func errAggregatesNotAllowed() *Error           { return defAggregates.new("", "") }
func errNoPayloadColumn(col, rel string) *Error { return defNoColumn.new("", "", col, rel) }
func errNoTable(schema, name string) *Error     { return defNoTable.new("", "", schema, name) }

// The 401s carry WWW-Authenticate as PostgREST sends it.
func errNoAPIKey() *Error {
	return defNoAPIKey.new("", "No `apikey` request header or url param was found.")
}
func errInvalidAPIKey() *Error { return defInvalidAPIKey.new("", "") }
func errInvalidJWT() *Error    { return invalidToken(defBadCrypto.new("", "")) }
func errJWTExpired() *Error    { return invalidToken(defJWTExpired.new("", "")) }
func errRoleNotAllowed(msg string) *Error {
	return defRoleNotAllowed.new("", "", msg)
}

func invalidToken(e *Error) *Error {
	e.Headers = map[string]string{"WWW-Authenticate": `Bearer error="invalid_token", error_description=` + strconv.Quote(e.Message)}
	return e
}

// errInternal answers an error of the database's internals without its text (which is
// logged): PostgreSQL's code, PostgREST's status for it.
func errInternal(code string, authenticated bool) *Error {
	return &Error{Status: pgStatus(code, authenticated), Code: code, Message: "Internal database error"}
}

// errUndefinedColumn is PostgreSQL's own error for a column a filter or select names
// that the relation lacks (PostgREST lets the database report it).
func errUndefinedColumn(rel, col string) *Error {
	return &Error{Status: 400, Code: "42703", Message: fmt.Sprintf("column %s.%s does not exist", rel, col)}
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
	// A constraint violation's "Failing row contains (…)" echoes every column of the row,
	// those the caller may not read included: the message names the constraint already.
	if pg.Detail != "" && !(strings.HasPrefix(pg.Code, "23") && strings.HasPrefix(pg.Detail, "Failing row contains")) {
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
		return errRaiseParse(details, hint)
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
