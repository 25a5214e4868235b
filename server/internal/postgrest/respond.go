package postgrest

// Stage 5 of the pipeline: respond decides, in one place, the status, Content-Range,
// Preference-Applied, Location and media type of a successful answer, from the plan and
// the statement's result. Nothing is written before it has decided, so an error answer
// never carries a header meant for success.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// response is a decided answer.
type response struct {
	status  int
	headers []header
	body    []byte
	hasBody bool
}

type header struct{ key, value string }

func (r *response) set(k, v string) { r.headers = append(r.headers, header{k, v}) }

// write sends the response (without the body for HEAD).
func (r *response) write(w http.ResponseWriter, method string) {
	h := w.Header()
	for _, kv := range r.headers {
		h.Set(kv.key, kv.value)
	}
	if r.hasBody {
		// A known length spares net/http the chunked encoding of bodies over its 2 KB buffer.
		h.Set("Content-Length", strconv.Itoa(len(r.body)))
	}
	w.WriteHeader(r.status)
	if r.hasBody && method != http.MethodHead {
		_, _ = w.Write(r.body)
	}
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

// preferenceApplied is the Preference-Applied header listing the honoured tokens among
// kinds (max-affected only with handling=strict, where it is enforced).
func preferenceApplied(p Preferences, kinds []string) string {
	var out []string
	for _, k := range preferOrder {
		if !contains(kinds, k) {
			continue
		}
		v := ""
		switch k {
		case "resolution":
			v = p.Resolution
		case "missing":
			v = p.Missing
		case "return":
			v = p.Return
		case "count":
			v = p.Count
		case "tx":
			v = p.Tx
		case "handling":
			v = p.Handling
		case "max-affected":
			if p.StrictMaxAffected() {
				v = strconv.Itoa(p.MaxAffected)
			}
		}
		if v != "" {
			out = append(out, k+"="+v)
		}
	}
	return strings.Join(out, ", ")
}

func (r *response) applied(p Preferences, kinds []string) {
	if v := preferenceApplied(p, kinds); v != "" {
		r.set("Preference-Applied", v)
	}
}

// respond decides the answer to p given its statement's result.
func respond(p ActionPlan, res result) (*response, error) {
	switch p := p.(type) {
	case *ReadPlan:
		return respondRead(p, res)
	case *MutatePlan:
		return respondMutate(p, res)
	case *CallPlan:
		return respondCall(p, res)
	}
	return nil, fmt.Errorf("postgrest: no response for %T", p)
}

func respondRead(p *ReadPlan, res result) (*response, error) {
	off := p.Req.Query.Offset[""]
	if res.rows == 0 && off > 0 && res.total != nil && int64(off) >= *res.total {
		// PostgREST: an offset past the counted rows is an unsatisfiable range.
		return nil, errRangeNotSatisfiable(off, *res.total)
	}
	r := &response{}
	r.applied(p.Req.Prefer, appliedRead)
	return r, r.rows(p.Req, res, rangeStatus(res), off)
}

func respondMutate(p *MutatePlan, res result) (*response, error) {
	r := &response{}
	pref := p.Req.Prefer
	switch p.Kind {
	case MutateInsert:
		status := http.StatusCreated
		if p.Upsert && res.total != nil && *res.total == 0 {
			// PostgREST: an upsert that inserted nothing (it only updated) answers 200.
			status = http.StatusOK
		}
		res.total = nil
		kinds := appliedInsert
		if !p.Empty && len(p.OnConflict) == 0 {
			// PostgREST does not report a resolution it could not apply (no key to conflict on).
			kinds = appliedInsert[1:]
		}
		r.applied(pref, kinds)
		return r, r.written(p, res, status)
	case MutateUpdate:
		r.applied(pref, appliedUpdate)
		return r, r.written(p, res, http.StatusOK)
	case MutateDelete:
		r.applied(pref, appliedDelete)
		return r, r.written(p, res, http.StatusOK)
	}
	// PUT
	if res.rows != 1 {
		return nil, errPutMismatch()
	}
	r.applied(pref, appliedPut)
	if pref.Return == "representation" {
		status := http.StatusOK
		if res.total != nil && *res.total > 0 {
			status = http.StatusCreated
		}
		res.total = nil
		return r, r.rows(p.Req, res, status, 0)
	}
	r.status = http.StatusNoContent
	return r, nil
}

// written answers a write: PostgREST's Content-Range for writes names the total (the
// rows written) only with a count preference; an insert names no range ("*/n"), other
// writes 0-(n-1).
func (r *response) written(p *MutatePlan, res result, status int) error {
	ret := p.Req.Prefer.Return
	if ret == "headers-only" && len(p.Rel.PK) > 0 && res.rows == 1 {
		var rows []map[string]any
		_ = json.Unmarshal(res.body, &rows)
		q := url.Values{}
		for _, pk := range p.Rel.PK {
			q.Set(pk, "eq."+fmt.Sprint(rows[0][pk]))
		}
		r.set("Location", "/"+p.Rel.Name+"?"+q.Encode())
	}
	offset := 0
	if p.Kind == MutateInsert {
		offset = -1
	}
	if p.Req.Prefer.Count != "" {
		n := int64(res.rows)
		res.total = &n
	}
	if ret != "representation" {
		r.set("Content-Range", contentRange(res, offset))
		r.status = http.StatusNoContent
		if p.Kind == MutateInsert {
			r.status = status
		}
		return nil
	}
	return r.rows(p.Req, res, status, offset)
}

func respondCall(p *CallPlan, res result) (*response, error) {
	r := &response{}
	if p.ReadOnly {
		r.applied(p.Req.Prefer, appliedRead) // max-affected is enforced on writes only
	} else {
		r.applied(p.Req.Prefer, appliedRPC)
	}
	f := p.Func
	switch {
	case f.Void:
		r.status = http.StatusNoContent
		return r, nil
	case !f.ReturnsSet && !p.Req.Media.Single:
		// One composite (an object or null, built by the statement) or one scalar.
		r.status, r.hasBody, r.body = http.StatusOK, true, res.body
		r.set("Content-Range", contentRange(res, 0))
		r.set("Content-Type", contentType(p.Req.Media, false))
		return r, nil
	}
	// As a read: a counted total larger than the rows answered is 206.
	return r, r.rows(p.Req, res, rangeStatus(res), p.Req.Query.Offset[""])
}

// rows answers a body of rows with its Content-Range, as an array, a single object or CSV.
func (r *response) rows(req *ApiRequest, res result, status, offset int) error {
	r.set("Content-Range", contentRange(res, offset))
	body := res.body
	switch {
	case req.Media.Single:
		if res.rows != 1 {
			return errSingular(res.rows)
		}
		// The statement built the object (sql.go, listBody).
		r.set("Content-Type", contentType(req.Media, true))
	case req.Media.CSV:
		csv, err := toCSV(body)
		if err != nil {
			return err
		}
		body = csv
		r.set("Content-Type", "text/csv; charset=utf-8")
	default:
		r.set("Content-Type", contentType(req.Media, false))
	}
	r.status, r.hasBody, r.body = status, true, body
	return nil
}

// contentType is the media type of a JSON answer (array, or single object).
func contentType(m Media, single bool) string {
	switch {
	case m.GeoJSON:
		return "application/geo+json; charset=utf-8"
	case single && m.Strip:
		return "application/vnd.pgrst.object+json;nulls=stripped; charset=utf-8"
	case single:
		return "application/vnd.pgrst.object+json; charset=utf-8"
	case m.Strip:
		return "application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8"
	}
	return "application/json; charset=utf-8"
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
