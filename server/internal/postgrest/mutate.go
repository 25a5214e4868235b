package postgrest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

	"casus/server/internal/db"
)

// readPayload reads the request body (bounded by MAX_BODY_BYTES) and its columns, for
// the writes that take rows: POST, PATCH and PUT.
func (s *Server) readPayload(rq *request, rel *Relation) (string, []string, error) {
	body, err := readBody(rq, s.d.Config.MaxBodyBytes)
	if err != nil {
		return "", nil, err
	}
	return payloadColumns(rq, rel, body)
}

// payloadColumns reads a JSON object or array body and the columns it sets
// (columns= when given, else the keys of the first object), all checked against the cache.
func payloadColumns(rq *request, rel *Relation, body []byte) (string, []string, error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		trimmed = []byte("{}")
	}
	var rows []map[string]json.RawMessage
	isArray := trimmed[0] == '['
	if isArray {
		if err := json.Unmarshal(trimmed, &rows); err != nil {
			return "", nil, &Error{Status: 400, Code: "PGRST102", Message: "Empty or invalid json", Details: err.Error()}
		}
	} else {
		var one map[string]json.RawMessage
		if err := json.Unmarshal(trimmed, &one); err != nil {
			return "", nil, &Error{Status: 400, Code: "PGRST102", Message: "Empty or invalid json", Details: err.Error()}
		}
		rows = []map[string]json.RawMessage{one}
	}
	cols := rq.q.Columns
	if len(cols) == 0 && len(rows) > 0 {
		// With missing=default objects may differ: every key any object names is a column.
		union := rq.prefer["missing"] == "default"
		seen := map[string]bool{}
		for _, r := range rows {
			if !union && len(r) != len(rows[0]) {
				return "", nil, &Error{Status: 400, Code: "PGRST102", Message: "All object keys must match"}
			}
			for k := range r {
				if !seen[k] {
					seen[k] = true
					cols = append(cols, k)
				}
			}
			if !union && len(seen) != len(rows[0]) {
				return "", nil, &Error{Status: 400, Code: "PGRST102", Message: "All object keys must match"}
			}
		}
		sort.Strings(cols)
	}
	for _, c := range cols {
		if rel.Column(strings.TrimSpace(c)) == nil {
			return "", nil, &Error{Status: 400, Code: "PGRST204", Message: fmt.Sprintf("Could not find the '%s' column of '%s' in the schema cache", c, rel.Name)}
		}
	}
	arr, _ := json.Marshal(rows)
	return string(arr), cols, nil
}

func quoteAll(cols []string) string {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = qi(strings.TrimSpace(c))
	}
	return strings.Join(q, ", ")
}

// minimal reports whether the client asked for no body: then the statement runs without
// RETURNING, as PostgREST does, so SELECT policies and privileges are not required
// (an anonymous visitor may insert feedback it cannot read back).
func minimal(rq *request) bool {
	r := rq.prefer["return"]
	return r == "" || r == "minimal"
}

// mutate runs a data-modifying statement, wrapped for a body unless minimal.
func (s *Server) mutate(rq *request, b *builder, rel *Relation, stmt string) (result, error) {
	rq.aliases = b.aliasNames(rel.Name)
	if minimal(rq) {
		return s.run(rq, db.ReadWrite, stmt, b.args, true)
	}
	sql, err := s.mutationResult(rq, b, rel, stmt+" returning *")
	if err != nil {
		return result{}, err
	}
	return s.run(rq, db.ReadWrite, sql, b.args, false)
}

// mutationResult wraps a data-modifying CTE named _m into the standard result row.
func (s *Server) mutationResult(rq *request, b *builder, rel *Relation, cte string) (string, error) {
	list, err := b.selectList(rel, "_t0", rq.q.Select, "")
	if err != nil {
		return "", err
	}
	return "with _m as (" + cte + ") select " + rq.listBody() + ", count(_r)::int, null::bigint from (select " +
		strings.Join(list, ", ") + " from _m _t0) _r", nil
}

func (s *Server) insert(rq *request, sc *Schema, rel *Relation) error {
	data, cols, err := s.readPayload(rq, rel)
	if err != nil {
		return err
	}
	b := &builder{s: sc, q: rq.q}
	src := relName(rel)
	cte := "insert into " + src
	upsert := rq.prefer["resolution"] == "merge-duplicates"
	if upsert {
		cte += " as _ins" // the RETURNING below tells inserted rows from updated ones
	}
	if data == "[]" {
		// An empty array inserts nothing (PostgREST answers 201 with no rows).
		setPreferenceApplied(rq, appliedInsert)
		return s.mutationResponse(rq, rel, result{body: []byte("[]")}, http.StatusCreated)
	}
	if len(cols) > 0 {
		sel := make([]string, len(cols))
		withDefaults := rq.prefer["missing"] == "default"
		for i, c := range cols {
			c = strings.TrimSpace(c)
			sel[i] = "_p." + qi(c)
			// missing=default: a key absent from an object takes the column default, not null.
			if d := rel.Column(c).DefaultExpr; withDefaults && d != "" {
				sel[i] = "case when _j::jsonb ? " + b.arg(c) + " then _p." + qi(c) + " else (" + d + ") end"
			}
		}
		cte += " (" + quoteAll(cols) + ") select " + strings.Join(sel, ", ") + " from json_array_elements(" + b.arg(data) + "::json) _j, json_populate_record(null::" + src + ", _j) _p"
	} else {
		cte += " default values"
	}
	if res, ok := rq.prefer["resolution"]; ok {
		target := rq.q.OnConflict
		if len(target) == 0 {
			target = rel.PK
		}
		for _, c := range target {
			if rel.Column(strings.TrimSpace(c)) == nil {
				return unknownColumn(rel, c)
			}
		}
		cte += " on conflict (" + quoteAll(target) + ")"
		if res == "ignore-duplicates" || len(cols) == 0 {
			cte += " do nothing"
		} else {
			var sets []string
			for _, c := range cols {
				sets = append(sets, qi(strings.TrimSpace(c))+" = excluded."+qi(strings.TrimSpace(c)))
			}
			cte += " do update set " + strings.Join(sets, ", ")
		}
	}
	var res result
	if upsert {
		res, err = s.upsert(rq, b, rel, cte)
	} else {
		res, err = s.mutate(rq, b, rel, cte)
	}
	if err != nil {
		return err
	}
	status := http.StatusCreated
	if upsert && res.total != nil && *res.total == 0 {
		// PostgREST: an upsert that inserted nothing (it only updated) answers 200.
		status = http.StatusOK
	}
	res.total = nil
	if len(rel.PK) == 0 && len(rq.q.OnConflict) == 0 {
		// PostgREST does not report a resolution it could not apply (no key to conflict on).
		delete(rq.prefer, "resolution")
	}
	setPreferenceApplied(rq, appliedInsert)
	return s.mutationResponse(rq, rel, res, status)
}

// upsert runs an insert ... on conflict do update (the target aliased _ins) and reports in
// res.total how many rows it inserted rather than updated (xmax is 0 for a new row).
func (s *Server) upsert(rq *request, b *builder, rel *Relation, cte string) (result, error) {
	rq.aliases = b.aliasNames(rel.Name)
	if minimal(rq) {
		sql := "with _m as (" + cte + " returning _ins.xmax::text::bigint = 0 as _new) select '[]', count(*)::int, count(*) filter (where _new) from _m"
		return s.run(rq, db.ReadWrite, sql, b.args, false)
	}
	list, err := b.selectList(rel, "_t0", rq.q.Select, "")
	if err != nil {
		return result{}, err
	}
	sql := "with _m as (" + cte + " returning _ins as _row, _ins.xmax::text::bigint = 0 as _new) select " + rq.listBody() + ", count(_r)::int, " +
		"(select count(*) from _m where _new) from (select " + strings.Join(list, ", ") + " from (select (_m._row).* from _m) _t0) _r"
	return s.run(rq, db.ReadWrite, sql, b.args, false)
}

func (s *Server) mutationResponse(rq *request, rel *Relation, res result, status int) error {
	ret := rq.prefer["return"]
	if ret == "headers-only" && len(rel.PK) > 0 && res.rows == 1 {
		var rows []map[string]any
		_ = json.Unmarshal(res.body, &rows)
		q := url.Values{}
		for _, pk := range rel.PK {
			q.Set(pk, "eq."+fmt.Sprint(rows[0][pk]))
		}
		rq.w.Header().Set("Location", "/"+rel.Name+"?"+q.Encode())
	}
	// PostgREST's Content-Range for writes: the total (the rows written) only with a
	// count preference; an insert names no range ("*/n"), other writes 0-(n-1).
	offset := 0
	if rq.r.Method == http.MethodPost {
		offset = -1
	}
	if rq.prefer["count"] != "" {
		n := int64(res.rows)
		res.total = &n
	}
	if ret != "representation" {
		rq.w.Header().Set("Content-Range", contentRange(res, offset))
		if rq.r.Method == http.MethodPost {
			rq.w.WriteHeader(status)
		} else {
			rq.w.WriteHeader(http.StatusNoContent)
		}
		return nil
	}
	return s.respond(rq, res, status, offset)
}

func (s *Server) update(rq *request, sc *Schema, rel *Relation) error {
	data, cols, err := s.readPayload(rq, rel)
	if err != nil {
		return err
	}
	b := &builder{s: sc, q: rq.q}
	if len(cols) == 0 {
		// Nothing to change: PostgREST answers with no rows.
		setPreferenceApplied(rq, appliedUpdate)
		return s.mutationResponse(rq, rel, result{body: []byte("[]")}, http.StatusOK)
	}
	var objArg string
	var rows []json.RawMessage
	_ = json.Unmarshal([]byte(data), &rows)
	objArg = b.arg(string(rows[0]))
	sel := make([]string, len(cols))
	for i, c := range cols {
		sel[i] = "_p." + qi(strings.TrimSpace(c))
	}
	where, err := b.rootWhere(rel, "_t0")
	if err != nil {
		return err
	}
	cte := "update " + relName(rel) + " _t0 set (" + quoteAll(cols) + ") = (select " + strings.Join(sel, ", ") +
		" from json_populate_record(null::" + relName(rel) + ", " + objArg + "::json) _p)" + where
	res, err := s.mutate(rq, b, rel, cte)
	if err != nil {
		return err
	}
	setPreferenceApplied(rq, appliedUpdate)
	return s.mutationResponse(rq, rel, res, http.StatusOK)
}

// put is PostgREST's single-row upsert: the filters are exactly the primary key, each an
// eq, and the body is the one row with the same key values. The row is inserted or, when
// the key exists, replaced by the body's columns (RLS applies to both paths).
func (s *Server) put(rq *request, sc *Schema, rel *Relation) error {
	q := rq.q
	if _, ok := q.Limit[""]; ok || q.Offset[""] > 0 {
		return &Error{Status: 400, Code: "PGRST114", Message: "limit/offset querystring parameters are not allowed for PUT"}
	}
	keyed := map[string]string{}
	for _, f := range q.Filters[""] {
		if f.Op != "eq" || f.Not || len(f.JSON) > 0 {
			keyed = nil
			break
		}
		if _, dup := keyed[f.Column]; dup {
			keyed = nil
			break
		}
		keyed[f.Column] = f.Value
	}
	ok := len(rel.PK) > 0 && keyed != nil && len(keyed) == len(rel.PK) && len(q.Logic[""]) == 0 && len(q.Filters) <= 1
	for _, pk := range rel.PK {
		if _, has := keyed[pk]; !has {
			ok = false
		}
	}
	if !ok {
		return &Error{Status: 405, Code: "PGRST105", Message: "Filters must include all and only primary key columns with 'eq' operators"}
	}
	data, cols, err := s.readPayload(rq, rel)
	if err != nil {
		return err
	}
	mismatch := &Error{Status: 400, Code: "PGRST115", Message: "Payload values do not match URL in primary key column(s)"}
	var rows []json.RawMessage
	_ = json.Unmarshal([]byte(data), &rows)
	if len(rows) != 1 || len(cols) == 0 {
		return mismatch
	}
	b := &builder{s: sc, q: q}
	src := relName(rel)
	sel := make([]string, len(cols))
	for i, c := range cols {
		sel[i] = "_p." + qi(strings.TrimSpace(c))
	}
	// The body's key must equal the URL's, compared as the column's type; a payload row
	// that fails this inserts nothing and the request answers PGRST115.
	var match []string
	for _, pk := range rel.PK {
		match = append(match, "_p."+qi(pk)+" = "+b.arg(keyed[pk])+"::text::"+rel.Column(pk).Type)
	}
	var sets []string
	for _, c := range cols {
		if c = strings.TrimSpace(c); !slices.Contains(rel.PK, c) {
			sets = append(sets, qi(c)+" = excluded."+qi(c))
		}
	}
	if len(sets) == 0 {
		// A body of key columns only still "replaces" the row (and counts it as affected).
		for _, pk := range rel.PK {
			sets = append(sets, qi(pk)+" = excluded."+qi(pk))
		}
	}
	conflict := " do update set " + strings.Join(sets, ", ")
	cte := "insert into " + src + " as _ins (" + quoteAll(cols) + ") select " + strings.Join(sel, ", ") +
		" from json_populate_record(null::" + src + ", " + b.arg(string(rows[0])) + "::json) _p where " + strings.Join(match, " and ") +
		" on conflict (" + quoteAll(rel.PK) + ")" + conflict
	var res result
	rq.aliases = b.aliasNames(rel.Name)
	if minimal(rq) {
		res, err = s.run(rq, db.ReadWrite, cte, b.args, true)
	} else {
		// RETURNING the row and whether it is new (xmax is 0 for a freshly inserted row).
		list, lerr := b.selectList(rel, "_t0", q.Select, "")
		if lerr != nil {
			return lerr
		}
		sql := "with _m as (" + cte + " returning _ins as _row, _ins.xmax::text::bigint = 0 as _new) select " + rq.listBody() + ", count(_r)::int, " +
			"(select count(*) from _m where _new) from (select " + strings.Join(list, ", ") + " from (select (_m._row).* from _m) _t0) _r"
		res, err = s.run(rq, db.ReadWrite, sql, b.args, false)
	}
	if err != nil {
		return err
	}
	if res.rows != 1 {
		return mismatch
	}
	setPreferenceApplied(rq, appliedPut)
	if !minimal(rq) && rq.prefer["return"] == "representation" {
		status := http.StatusOK
		if res.total != nil && *res.total > 0 {
			status = http.StatusCreated
		}
		res.total = nil
		return s.respond(rq, res, status, 0)
	}
	rq.w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) delete(rq *request, sc *Schema, rel *Relation) error {
	b := &builder{s: sc, q: rq.q}
	where, err := b.rootWhere(rel, "_t0")
	if err != nil {
		return err
	}
	cte := "delete from " + relName(rel) + " _t0" + where
	res, err := s.mutate(rq, b, rel, cte)
	if err != nil {
		return err
	}
	setPreferenceApplied(rq, appliedDelete)
	return s.mutationResponse(rq, rel, res, http.StatusOK)
}

// rpc calls a function with named arguments from the JSON body (POST) or the query
// string (GET, stable and immutable functions only).
func (s *Server) rpc(rq *request, sc *Schema, f *Func) error {
	args := map[string]json.RawMessage{}
	var rawBody []byte
	mode := db.ReadOnly
	switch rq.r.Method {
	case http.MethodPost:
		body, err := readBody(rq, s.d.Config.MaxBodyBytes)
		if err != nil {
			return err
		}
		rawBody = bytes.TrimSpace(body)
		if !f.SingleJSON && len(rawBody) > 0 {
			if err := json.Unmarshal(rawBody, &args); err != nil {
				return &Error{Status: 400, Code: "PGRST102", Message: "Empty or invalid json", Details: err.Error()}
			}
		}
		if f.Volatile {
			mode = db.ReadWrite
		}
	case http.MethodGet, http.MethodHead:
		if f.Volatile {
			return &Error{Status: 405, Code: "PGRST101", Message: "Cannot use the GET method on RPC for functions that are volatile; use POST"}
		}
		for k, v := range rq.q.Args {
			j, _ := json.Marshal(v[0])
			args[k] = j
		}
	default:
		return &Error{Status: 405, Code: "PGRST101", Message: "Only GET and POST are allowed for RPC"}
	}
	b := &builder{s: sc, q: rq.q}
	var call []string
	if f.SingleJSON {
		if len(rawBody) == 0 {
			rawBody = []byte("{}")
		}
		call = append(call, b.arg(string(rawBody))+"::"+f.Args[0].Type)
	} else {
		known := map[string]bool{}
		for _, a := range f.Args {
			known[a.Name] = true
			v, ok := args[a.Name]
			if !ok {
				if !a.HasDefault {
					return s.noFunc(f, args)
				}
				continue
			}
			var expr string
			var str string
			if json.Unmarshal(v, &str) == nil && a.Type != "json" && a.Type != "jsonb" {
				expr = b.arg(str) + "::text::" + a.Type
			} else if string(v) == "null" {
				expr = "null::" + a.Type
			} else if a.Type == "json" || a.Type == "jsonb" {
				expr = b.arg(string(v)) + "::" + a.Type
			} else if strings.HasSuffix(a.Type, "[]") && len(bytes.TrimSpace(v)) > 0 && bytes.TrimSpace(v)[0] == '[' {
				// A JSON array for an array parameter (supabase-js sends text[] as ["a","b"]):
				// PostgREST reads arguments with json_to_record, which makes PostgreSQL arrays
				// of JSON arrays, nested ones included.
				expr = "(select _r._a from jsonb_to_record(jsonb_build_object('_a', " + b.arg(string(v)) + "::jsonb)) as _r(_a " + a.Type + "))"
			} else {
				expr = "(" + b.arg(string(v)) + "::jsonb #>> '{}')::" + a.Type
			}
			call = append(call, qi(a.Name)+" => "+expr)
		}
		for k := range args {
			if !known[k] {
				return s.noFunc(f, args)
			}
		}
	}
	fn := qi(f.Schema) + "." + qi(f.Name) + "(" + strings.Join(call, ", ") + ")"
	var sql string
	switch {
	case f.Void:
		sql = "select 'null', (" + "select 1 from (select " + fn + ") _v)::int, null::bigint"
	case f.ReturnsSet || f.ReturnsRow:
		// Filters, order and limit apply to the rows a set-returning function yields.
		rel := f.Result // described with the schema cache
		list, err := b.selectList(rel, "_t0", rq.q.Select, "")
		if err != nil {
			return err
		}
		where, err := b.where(rel, "_t0", "")
		if err != nil {
			return err
		}
		if where != "" {
			where = " where " + where
		}
		order, err := b.orderBy(rel, "_t0", "")
		if err != nil {
			return err
		}
		sql = "select " + rq.listBody() + ", count(_r)::int, null::bigint from (select " + strings.Join(list, ", ") +
			" from " + fn + " _t0" + where + b.groupBy("") + order + b.limitOffset("", s.d.Config.DBMaxRows) + ") _r"
	default:
		sql = "select coalesce(to_json(" + fn + "), 'null')::text, 1, null::bigint"
		if rq.strip {
			sql = "select json_strip_nulls(coalesce(to_json(" + fn + "), 'null'))::text, 1, null::bigint"
		}
	}
	rq.aliases = b.aliasNames(f.Name)
	res, err := s.exec(rq, mode, sql, b.args)
	if err != nil {
		return err
	}
	if mode == db.ReadWrite {
		setPreferenceApplied(rq, appliedRPC)
	} else {
		setPreferenceApplied(rq, appliedRead) // max-affected is enforced on writes only
	}
	if f.Void {
		rq.w.WriteHeader(http.StatusNoContent)
		return nil
	}
	if f.ReturnsRow && !f.ReturnsSet && !rq.single {
		// A function returning one composite answers with an object (or null).
		var arr []json.RawMessage
		_ = json.Unmarshal(res.body, &arr)
		rq.w.Header().Set("Content-Type", rq.contentType(false))
		rq.w.WriteHeader(http.StatusOK)
		if len(arr) == 0 || string(arr[0]) == "null" {
			_, _ = rq.w.Write([]byte("null"))
			return nil
		}
		_, _ = rq.w.Write(arr[0])
		return nil
	}
	if !f.ReturnsSet && !f.ReturnsRow && !rq.single {
		rq.w.Header().Set("Content-Type", rq.contentType(false))
		rq.w.WriteHeader(http.StatusOK)
		_, _ = rq.w.Write(res.body)
		return nil
	}
	return s.respond(rq, res, http.StatusOK, 0)
}

func (s *Server) noFunc(f *Func, args map[string]json.RawMessage) error {
	var names []string
	for k := range args {
		names = append(names, k)
	}
	sort.Strings(names)
	return &Error{Status: 404, Code: "PGRST202", Message: fmt.Sprintf("Could not find the function %s.%s(%s) in the schema cache", f.Schema, f.Name, strings.Join(names, ", ")),
		Hint: "Perhaps you meant to call the function with different arguments"}
}

// toCSV turns a JSON array of objects into CSV as PostgREST writes it: the keys of the
// first row as the header, then each row as PostgreSQL prints a record without its
// parentheses (null empty, true/false as t/f, a value quoted when it is empty or holds a
// comma, quote, backslash, parenthesis or space), lines joined by "\n" with none after.
func toCSV(body []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	var header []string
	var lines int
	for dec.More() {
		var row orderedRow
		if err := dec.Decode(&row); err != nil {
			return nil, err
		}
		if header == nil {
			header = row.keys
			buf.WriteString(strings.Join(header, ","))
		}
		buf.WriteByte('\n')
		lines++
		for i, k := range header {
			if i > 0 {
				buf.WriteByte(',')
			}
			if v, ok := row.vals[k]; ok && !row.null[k] {
				writeRecordField(&buf, v)
			}
		}
	}
	if lines == 0 {
		buf.WriteByte('\n') // no rows: an empty header line, as PostgREST answers
	}
	return buf.Bytes(), nil
}

// writeRecordField writes v quoted as PostgreSQL's record output quotes a field.
func writeRecordField(buf *bytes.Buffer, v string) {
	quote := v == "" || strings.ContainsAny(v, "\"\\(),") || strings.IndexFunc(v, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'
	}) >= 0
	if !quote {
		buf.WriteString(v)
		return
	}
	buf.WriteByte('"')
	for _, r := range v {
		if r == '"' || r == '\\' {
			buf.WriteRune(r)
		}
		buf.WriteRune(r)
	}
	buf.WriteByte('"')
}

type orderedRow struct {
	keys []string
	vals map[string]string
	null map[string]bool
}

func (o *orderedRow) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	o.vals = map[string]string{}
	o.null = map[string]bool{}
	if _, err := dec.Token(); err != nil {
		return err
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		k := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		var s string
		if string(raw) == "null" {
			o.null[k] = true
		} else if json.Unmarshal(raw, &s) != nil {
			switch string(raw) {
			case "true":
				s = "t"
			case "false":
				s = "f"
			default:
				s = string(raw)
			}
		}
		o.keys = append(o.keys, k)
		o.vals[k] = s
	}
	return nil
}
