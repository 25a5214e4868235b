// Package postgrest serves /rest/v1 as PostgREST does for supabase-js: the request is
// parsed (parse.go), resolved against the schema cache (schema.go), turned into one
// parameterised statement that makes PostgreSQL build the JSON body (build.go), and run
// in one transaction as the caller's role with PostgREST's settings (db.AsRole).
package postgrest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"casus/server/internal/authn"
	"casus/server/internal/db"
	"casus/server/internal/deps"
	"casus/server/internal/httpx"
)

// Server is the data API.
type Server struct {
	d      deps.Deps
	cache  cache
	cancel context.CancelFunc
}

// New loads the schema cache and starts watching for reloads.
func New(ctx context.Context, d deps.Deps) (*Server, error) {
	s := &Server{d: d}
	if err := checkSchemas(ctx, d.API, d.Config.DBSchemas); err != nil {
		return nil, err
	}
	// The first load happens inside the watcher, once it listens, so no DDL between the
	// load and LISTEN goes unheard; New returns when that load is done.
	wctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	started := make(chan error, 1)
	go s.watch(wctx, started)
	select {
	case err := <-started:
		if err != nil {
			cancel()
			return nil, fmt.Errorf("postgrest schema cache: %w", err)
		}
	case <-ctx.Done():
		cancel()
		return nil, ctx.Err()
	}
	return s, nil
}

// Close stops the schema watcher.
func (s *Server) Close() error { s.cancel(); return nil }

// Reload refreshes the schema cache now (at start, on NOTIFY pgrst, and in tests that
// create tables), then warns about exposed relations without row-level security.
func (s *Server) Reload(ctx context.Context) error {
	sc, err := loadSchema(ctx, s.d.Owner, s.d.Config.DBSchemas)
	if err != nil {
		return err
	}
	s.cache.v.Store(sc)
	warnUnprotected(ctx, s.d.Owner, s.d.Config.DBSchemas, s.d.Log)
	return nil
}

// Routes registers /rest/v1.
func (s *Server) Routes(mux *http.ServeMux) {
	h := httpx.Handle(s.d.Log, func(w http.ResponseWriter, r *http.Request) error {
		err := s.serve(w, r)
		if err != nil {
			// Preferences are reported applied only with a successful answer.
			w.Header().Del("Preference-Applied")
		}
		return err
	})
	for _, m := range []string{"GET", "HEAD", "POST", "PATCH", "PUT", "DELETE"} {
		mux.Handle(m+" /rest/v1/", h)
	}
}

type request struct {
	w      http.ResponseWriter
	r      *http.Request
	id     *authn.Identity
	schema string
	q      *Query
	prefer map[string]string
	single bool
	csv    bool
	// strip: Accept asked for nulls=stripped (object members that are null are left out).
	strip bool
	// For Prefer count=planned|estimated: the EXPLAIN giving the planner's row estimate,
	// and the statement with an exact count that estimated uses below max-rows.
	explainSQL, exactSQL string
	// body holds the JSON PostgreSQL built until the response is written (see bodyBuffer).
	body *bodyBuffer
	// aliases names the relations behind the statement's aliases, for error messages.
	aliases *aliasNames
}

// bodyBuffer receives the response body straight from pgx's read buffer. Buffers are
// reused across requests: a 20-row list body is about 20 kB, which was two thirds of the
// bytes a request allocated.
type bodyBuffer struct{ b []byte }

// ScanBytes implements pgtype.BytesScanner; v is only valid during the call.
func (x *bodyBuffer) ScanBytes(v []byte) error {
	x.b = append(x.b[:0], v...)
	return nil
}

// maxPooledBody keeps the pool from holding on to the rare very large body.
const maxPooledBody = 1 << 20

var bodyPool = sync.Pool{New: func() any { return new(bodyBuffer) }}

// bodyScanner is the request's body buffer, taken from the pool on first use.
func (rq *request) bodyScanner() *bodyBuffer {
	if rq.body == nil {
		rq.body = bodyPool.Get().(*bodyBuffer)
	}
	return rq.body
}

// release returns the body buffer once the response has been written.
func (rq *request) release() {
	if rq.body != nil && cap(rq.body.b) <= maxPooledBody {
		rq.body.b = rq.body.b[:0]
		bodyPool.Put(rq.body)
	}
	rq.body = nil
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) error {
	id := s.d.Keys.Identify(r)
	switch err := id.Err(); {
	case errors.Is(err, authn.ErrNoAPIKey):
		return &Error{Status: 401, Code: "PGRST301", Message: "No API key found in request", Hint: "No `apikey` request header or url param was found."}
	case errors.Is(err, authn.ErrInvalidKey):
		return &Error{Status: 401, Code: "PGRST301", Message: "Invalid API key"}
	case errors.Is(err, authn.ErrExpiredToken):
		return &Error{Status: 401, Code: "PGRST303", Message: "JWT expired"}
	case err != nil:
		return &Error{Status: 401, Code: "PGRST301", Message: "JWSError JWSInvalidSignature"}
	}
	rq := &request{w: w, r: r, id: id}
	defer rq.release()
	var err error
	var invalid []string
	rq.prefer, invalid = parsePrefer(r.Header.Values("Prefer"))
	if rq.prefer["handling"] == "strict" && len(invalid) > 0 {
		return &Error{Status: 400, Code: "PGRST122", Message: "Invalid preferences given with handling=strict", Details: "Invalid preferences: " + strings.Join(invalid, ", ")}
	}
	if rq.schema, err = s.profile(r); err != nil {
		return err
	}
	accept := r.Header.Get("Accept")
	if !acceptable(accept) {
		return &Error{Status: 406, Code: "PGRST107", Message: "None of these media types are available: " + accept}
	}
	rq.single = strings.Contains(accept, "application/vnd.pgrst.object+json")
	rq.csv = strings.Contains(accept, "text/csv")
	rq.strip = stripNulls(accept)
	path := strings.TrimPrefix(r.URL.Path, "/rest/v1/")
	if path == "" {
		httpx.WriteJSON(w, 200, map[string]any{"swagger": "2.0", "info": map[string]string{"title": "Casus data API"}})
		return nil
	}
	isRPC := strings.HasPrefix(path, "rpc/")
	vals := r.URL.Query()
	if err := checkLimits(r.URL.RawQuery, vals); err != nil {
		return err
	}
	if rq.q, err = parseQuery(vals, isRPC); err != nil {
		return err
	}
	if rg := r.Header.Get("Range"); rg != "" && r.Method == http.MethodGet {
		if from, to, ok := parseRange(rg); ok {
			rq.q.Offset[""] = from
			if to >= from {
				rq.q.Limit[""] = to - from + 1
			}
		}
	}
	sc := s.cache.get()
	if isRPC {
		name := strings.TrimPrefix(path, "rpc/")
		f := sc.Funcs[rq.schema+"."+name]
		if f == nil {
			return &Error{Status: 404, Code: "PGRST202", Message: fmt.Sprintf("Could not find the function %s.%s without parameters in the schema cache", rq.schema, name), Hint: nil}
		}
		return s.rpc(rq, sc, f)
	}
	rel := sc.Relations[rq.schema+"."+path]
	if rel == nil {
		return &Error{Status: 404, Code: "PGRST205", Message: fmt.Sprintf("Could not find the table '%s.%s' in the schema cache", rq.schema, path)}
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		return s.read(rq, sc, rel)
	case http.MethodPost:
		return s.insert(rq, sc, rel)
	case http.MethodPatch:
		return s.update(rq, sc, rel)
	case http.MethodPut:
		return s.put(rq, sc, rel)
	case http.MethodDelete:
		return s.delete(rq, sc, rel)
	}
	return &Error{Status: 405, Code: "PGRST117", Message: "Unsupported HTTP method: " + r.Method}
}

// preferValues are the Prefer tokens this API understands (max-affected takes a number).
var preferValues = map[string]map[string]bool{
	"resolution": {"merge-duplicates": true, "ignore-duplicates": true},
	"missing":    {"default": true, "null": true},
	"return":     {"representation": true, "minimal": true, "headers-only": true},
	"count":      {"exact": true, "planned": true, "estimated": true},
	"tx":         {"commit": true, "rollback": true},
	"handling":   {"strict": true, "lenient": true},
}

// preferOrder is the order PostgREST lists applied preferences in.
var preferOrder = []string{"resolution", "missing", "return", "count", "tx", "handling", "max-affected"}

// Which applied preferences each kind of request reports, as PostgREST does.
var (
	appliedRead   = []string{"count", "tx", "handling"}
	appliedInsert = []string{"resolution", "missing", "return", "count", "tx", "handling"}
	appliedUpdate = []string{"missing", "return", "count", "tx", "handling", "max-affected"}
	appliedPut    = []string{"return", "count", "tx", "handling"}
	appliedDelete = []string{"return", "count", "tx", "handling", "max-affected"}
	appliedRPC    = []string{"count", "tx", "handling", "max-affected"}
)

// setPreferenceApplied writes the Preference-Applied header listing the honoured tokens
// among kinds (max-affected only with handling=strict, where it is enforced).
func setPreferenceApplied(rq *request, kinds []string) {
	want := map[string]bool{}
	for _, k := range kinds {
		want[k] = true
	}
	var out []string
	for _, k := range preferOrder {
		v, ok := rq.prefer[k]
		if !ok || !want[k] {
			continue
		}
		if k == "max-affected" && rq.prefer["handling"] != "strict" {
			continue
		}
		out = append(out, k+"="+v)
	}
	if len(out) > 0 {
		rq.w.Header().Set("Preference-Applied", strings.Join(out, ", "))
	}
}

func (s *Server) profile(r *http.Request) (string, error) {
	h := r.Header.Get("Accept-Profile")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h = r.Header.Get("Content-Profile")
	}
	schemas := s.d.Config.DBSchemas
	if h == "" {
		return schemas[0], nil
	}
	for _, sc := range schemas {
		if sc == h {
			return h, nil
		}
	}
	return "", &Error{Status: 406, Code: "PGRST106", Message: "The schema must be one of the following: " + strings.Join(schemas, ", ")}
}

// mediaTypes are the bodies this API produces (JSON, the single-object JSON, CSV).
var mediaTypes = map[string]bool{"*/*": true, "application/*": true, "application/json": true, "text/*": true, "text/csv": true,
	"application/vnd.pgrst.object+json": true, "application/vnd.pgrst.object": true, "application/openapi+json": true,
	"application/vnd.pgrst.array+json": true, "application/vnd.pgrst.array": true}

// stripNulls reports whether Accept asks for PostgREST's nulls=stripped on its array or
// object media type.
func stripNulls(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		mt, params, _ := strings.Cut(part, ";")
		mt = strings.ToLower(strings.TrimSpace(mt))
		if mt != "application/vnd.pgrst.array+json" && mt != "application/vnd.pgrst.object+json" {
			continue
		}
		for _, p := range strings.Split(params, ";") {
			if strings.EqualFold(strings.ReplaceAll(p, " ", ""), "nulls=stripped") {
				return true
			}
		}
	}
	return false
}

// listBody is the select expression that builds the JSON body from the rows of _r.
func (rq *request) listBody() string {
	if rq.strip {
		return "json_strip_nulls(coalesce(json_agg(_r), '[]'))::text"
	}
	return "coalesce(json_agg(_r), '[]')::text"
}

// contentType is the media type of a JSON answer (array, or single object).
func (rq *request) contentType(single bool) string {
	switch {
	case single && rq.strip:
		return "application/vnd.pgrst.object+json;nulls=stripped; charset=utf-8"
	case single:
		return "application/vnd.pgrst.object+json; charset=utf-8"
	case rq.strip:
		return "application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8"
	}
	return "application/json; charset=utf-8"
}

func acceptable(accept string) bool {
	if strings.TrimSpace(accept) == "" {
		return true
	}
	for _, part := range strings.Split(accept, ",") {
		mt, _, _ := strings.Cut(part, ";")
		if mediaTypes[strings.ToLower(strings.TrimSpace(mt))] {
			return true
		}
	}
	return false
}

// parsePrefer reads the Prefer headers: the first occurrence of a preference wins, values
// outside the known ones are left out (and listed in invalid, for handling=strict).
func parsePrefer(vals []string) (prefs map[string]string, invalid []string) {
	prefs = map[string]string{}
	for _, v := range vals {
		for _, p := range strings.Split(v, ",") {
			p = strings.TrimSpace(p)
			if p == "" {
				continue
			}
			k, val, _ := strings.Cut(p, "=")
			ok := preferValues[k][val]
			if k == "max-affected" {
				n, err := strconv.Atoi(val)
				ok = err == nil && n >= 0
			}
			if !ok {
				invalid = append(invalid, p)
				continue
			}
			if _, seen := prefs[k]; !seen {
				prefs[k] = val
			}
		}
	}
	return prefs, invalid
}

func parseRange(h string) (int, int, bool) {
	h = strings.TrimPrefix(h, "items=")
	a, b, ok := strings.Cut(h, "-")
	if !ok {
		return 0, 0, false
	}
	from, err := strconv.Atoi(a)
	if err != nil {
		return 0, 0, false
	}
	to := -1
	if b != "" {
		if to, err = strconv.Atoi(b); err != nil {
			return 0, 0, false
		}
	}
	return from, to, true
}

// result is what every statement returns: the JSON body, its row count, the total.
type result struct {
	body  []byte // scanned straight into bytes: one copy of the body, not two
	rows  int
	total *int64
}

func (s *Server) exec(rq *request, mode db.Mode, sql string, args []any) (result, error) {
	return s.run(rq, mode, sql, args, false)
}

// run executes the statement; plain statements (minimal mutations, no RETURNING) report
// their affected rows from the command tag instead of a result row.
func (s *Server) run(rq *request, mode db.Mode, sql string, args []any, plain bool) (result, error) {
	var res result
	info := db.RequestInfo{Method: rq.r.Method, Path: rq.r.URL.Path, Headers: headerMap(rq.r)}
	strict := rq.prefer["handling"] == "strict" && rq.prefer["max-affected"] != ""
	// A write answering a single object must change exactly one row: decided before commit.
	singular := mode == db.ReadWrite && rq.single
	if rq.explainSQL == "" && !(mode == db.ReadWrite && strict) && !singular {
		// Nothing to decide between statements: one round trip.
		res, err := s.pipelined(rq, mode, info, sql, args, plain)
		if err != nil {
			return res, s.dbError(rq, err)
		}
		return res, nil
	}
	rollback := errors.New("rollback requested")
	err := db.AsRole(rq.r.Context(), s.d.API, rq.id.Claims, mode, info, func(tx pgx.Tx) error {
		if plain {
			tag, err := tx.Exec(rq.r.Context(), sql, args...)
			if err != nil {
				return err
			}
			res = plainResult(tag)
		} else {
			stmt, planned := sql, (*int64)(nil)
			if rq.explainSQL != "" {
				n, err := plannedRows(rq.r.Context(), tx, rq.explainSQL, args)
				if err != nil {
					return err
				}
				if max := int64(s.d.Config.DBMaxRows); rq.prefer["count"] == "estimated" && (max == 0 || n <= max) {
					stmt = rq.exactSQL
				} else {
					planned = &n
				}
			}
			if err := rq.scanResult(tx.QueryRow(rq.r.Context(), stmt, args...), &res); err != nil {
				return err
			}
			if planned != nil {
				res.total = planned
			}
		}
		if mode == db.ReadWrite {
			if singular && res.rows != 1 {
				// PostgREST rolls the write back (PGRST116) rather than answer after it.
				return singularityError(res.rows)
			}
			if max, ok := rq.prefer["max-affected"]; ok && rq.prefer["handling"] == "strict" {
				if n, err := strconv.Atoi(max); err == nil && res.rows > n {
					return &Error{Status: 400, Code: "PGRST124", Message: "Query result exceeds max-affected preference constraint", Details: fmt.Sprintf("The query affects %d rows", res.rows)}
				}
			}
			if rq.prefer["tx"] == "rollback" {
				return rollback
			}
		}
		return nil
	})
	if errors.Is(err, rollback) {
		err = nil
	}
	if err != nil {
		return res, s.dbError(rq, err)
	}
	return res, nil
}

// dbError turns an error of a request's statement into the answer PostgREST gives.
// Errors of the database's internals (out of memory, limits, I/O) answer a generic
// error and are logged in full here instead; the statement's own aliases in other
// messages become the names of the relations they stand for.
func (s *Server) dbError(rq *request, err error) error {
	var nr db.ErrRoleNotAllowed
	if errors.As(err, &nr) {
		return &Error{Status: 401, Code: "PGRST301", Message: err.Error()}
	}
	if connectionLost(err) {
		return errUnavailable
	}
	var pg *pgconn.PgError
	if !errors.As(err, &pg) {
		return err
	}
	if internalSQLState(pg.Code) {
		s.d.Log.Error("postgrest: database error", "request_id", rq.r.Header.Get("X-Request-Id"), "code", pg.Code,
			"message", pg.Message, "detail", pg.Detail, "hint", pg.Hint)
		return &Error{Status: pgStatus(pg.Code, rq.id.HasUserToken), Code: pg.Code, Message: "Internal database error"}
	}
	e := fromPG(err, rq.id.HasUserToken)
	if pe, ok := e.(*Error); ok && rq.aliases != nil {
		pe.Message = rq.aliases.replace(pe.Message)
		if d, ok := pe.Details.(string); ok {
			pe.Details = rq.aliases.replace(d)
		}
		if h, ok := pe.Hint.(string); ok {
			pe.Hint = rq.aliases.replace(h)
		}
	}
	return e
}

// singularityError is PostgREST's answer when a single object was asked for and the
// statement yielded n rows.
func singularityError(n int) *Error {
	return &Error{Status: 406, Code: "PGRST116", Message: "JSON object requested, multiple (or no) rows returned", Details: fmt.Sprintf("The result contains %d rows", n)}
}

// pipelined runs the statement after the role and claims settings in one round trip and
// one implicit transaction (db.SendAsRole); tx=rollback wraps it in BEGIN ... ROLLBACK.
func (s *Server) pipelined(rq *request, mode db.Mode, info db.RequestInfo, sql string, args []any, plain bool) (result, error) {
	var res result
	ctx := rq.r.Context()
	conn, err := s.d.API.Acquire(ctx)
	if err != nil {
		return res, err
	}
	defer conn.Release()
	rollback := mode == db.ReadWrite && rq.prefer["tx"] == "rollback"
	err = db.SendAsRole(ctx, conn.Conn(), rq.id.Claims, mode, info, rollback, func(b *pgx.Batch) {
		if plain {
			b.Queue(sql, args...).Exec(func(tag pgconn.CommandTag) error {
				res = plainResult(tag)
				return nil
			})
		} else {
			b.Queue(sql, args...).QueryRow(func(row pgx.Row) error {
				return rq.scanResult(row, &res)
			})
		}
	})
	return res, err
}

// plainResult is the result of a statement without RETURNING: no rows to show, only
// how many it affected.
func plainResult(tag pgconn.CommandTag) result {
	return result{body: []byte("[]"), rows: int(tag.RowsAffected())}
}

// scanResult reads a statement's one result row (body, rows, total) into res, the body
// into the request's pooled buffer.
func (rq *request) scanResult(row pgx.Row, res *result) error {
	body := rq.bodyScanner()
	if err := row.Scan(body, &res.rows, &res.total); err != nil {
		return err
	}
	res.body = body.b
	return nil
}

// plannedRows is the planner's estimate of the rows a statement yields.
func plannedRows(ctx context.Context, tx pgx.Tx, explain string, args []any) (int64, error) {
	var plan []struct {
		Plan struct {
			Rows float64 `json:"Plan Rows"`
		}
	}
	if err := tx.QueryRow(ctx, explain, args...).Scan(&plan); err != nil {
		return 0, err
	}
	if len(plan) == 0 {
		return 0, nil
	}
	return int64(plan[0].Plan.Rows), nil
}

func headerMap(r *http.Request) map[string]string {
	m := map[string]string{}
	for k, v := range r.Header {
		lk := strings.ToLower(k)
		if lk == "authorization" || lk == "apikey" || lk == "cookie" {
			continue // never copy credentials into settings
		}
		m[lk] = strings.Join(v, ", ")
	}
	return m
}

func (s *Server) read(rq *request, sc *Schema, rel *Relation) error {
	b := &builder{s: sc, q: rq.q}
	list, err := b.selectList(rel, "_t0", rq.q.Select, "")
	if err != nil {
		return err
	}
	where, err := b.rootWhere(rel, "_t0")
	if err != nil {
		return err
	}
	order, err := b.orderBy(rel, "_t0", "")
	if err != nil {
		return err
	}
	from := " from " + relName(rel) + " _t0" + where + b.groupBy("")
	stmt := func(count string) string {
		return "select " + rq.listBody() + ", count(_r)::int, " + count + " from (select " + strings.Join(list, ", ") +
			from + order + b.limitOffset("", s.d.Config.DBMaxRows) + ") _r"
	}
	exact := "(select count(*) from (select 1" + from + ") _c)"
	sql := stmt("null::bigint")
	switch rq.prefer["count"] {
	case "exact":
		sql = stmt(exact)
	case "planned", "estimated":
		if estimateMayReveal(rq, rel) {
			// The planner estimates from the whole table's statistics, rows the caller
			// cannot read included: count what the caller can see instead.
			sql = stmt(exact)
			break
		}
		// The same select list and filters (so every parameter is referenced), unlimited:
		// the top plan node's row estimate is the planned count.
		rq.explainSQL = "explain (format json) select " + strings.Join(list, ", ") + from
		rq.exactSQL = stmt(exact)
	}
	rq.aliases = b.aliasNames(rel.Name)
	res, err := s.exec(rq, db.ReadOnly, sql, b.args)
	if err != nil {
		return err
	}
	if off := int64(rq.q.Offset[""]); res.rows == 0 && off > 0 && res.total != nil && off >= *res.total {
		// PostgREST: an offset past the counted rows is an unsatisfiable range.
		rq.w.Header().Set("Content-Range", fmt.Sprintf("*/%d", *res.total))
		return &Error{Status: http.StatusRequestedRangeNotSatisfiable, Code: "PGRST103", Message: "Requested range not satisfiable",
			Details: fmt.Sprintf("An offset of %d was requested, but there are only %d rows.", off, *res.total)}
	}
	setPreferenceApplied(rq, appliedRead)
	return s.respond(rq, res, rangeStatus(res), rq.q.Offset[""])
}

// estimateMayReveal reports whether the planner's estimate for rel could tell the caller
// about rows it may not read: a table under row-level security, or a view (whose tables
// may be), read by a role that does not bypass it.
func estimateMayReveal(rq *request, rel *Relation) bool {
	if c := rq.id.Claims; c != nil && c.Role == authn.RoleServiceRole {
		return false
	}
	return rel.RowSecurity || rel.IsView
}

// contentRange is the Content-Range of rows from offset (-1: no range, as for inserts)
// out of the total, "*" when not counted.
func contentRange(res result, offset int) string {
	total := "*"
	if res.total != nil {
		total = strconv.FormatInt(*res.total, 10)
	}
	if res.rows > 0 && offset >= 0 {
		return fmt.Sprintf("%d-%d/%s", offset, offset+res.rows-1, total)
	}
	return "*/" + total
}

// rangeStatus is PostgREST's status for a read: 206 when a counted total is larger than
// the rows answered, else 200.
func rangeStatus(res result) int {
	if res.total != nil && int64(res.rows) < *res.total {
		return http.StatusPartialContent
	}
	return http.StatusOK
}

// respond writes the body with Content-Range, single-object negotiation and CSV.
func (s *Server) respond(rq *request, res result, status, offset int) error {
	w := rq.w
	w.Header().Set("Content-Range", contentRange(res, offset))
	body := res.body
	switch {
	case rq.single:
		if res.rows != 1 {
			return singularityError(res.rows)
		}
		var arr []json.RawMessage
		_ = json.Unmarshal(body, &arr)
		body = arr[0]
		w.Header().Set("Content-Type", rq.contentType(true))
	case rq.csv:
		csv, err := toCSV(body)
		if err != nil {
			return err
		}
		body = csv
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	default:
		w.Header().Set("Content-Type", rq.contentType(false))
	}
	// A known length spares net/http the chunked encoding of bodies over its 2 KB buffer.
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if rq.r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
	return nil
}

func readBody(rq *request, max int64) ([]byte, error) {
	b, err := io.ReadAll(http.MaxBytesReader(rq.w, rq.r.Body, max))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, &Error{Status: 413, Code: "PGRST102", Message: "Request body too large"}
		}
		return nil, &Error{Status: 400, Code: "PGRST102", Message: "Could not read the request body"}
	}
	return b, nil
}
