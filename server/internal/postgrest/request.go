package postgrest

// Stage 1 of the pipeline (see handler.go): the HTTP request becomes an ApiRequest — its
// method, target, typed preferences, media, parsed query string and raw payload. Nothing
// here looks at the schema cache; names are resolved by Plan (plan.go).

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// TargetKind is what a request addresses.
type TargetKind int

const (
	// TargetRoot is /rest/v1/ itself (the OpenAPI root).
	TargetRoot TargetKind = iota
	// TargetRelation is a table or view: /rest/v1/<name>.
	TargetRelation
	// TargetCall is a function: /rest/v1/rpc/<name>.
	TargetCall
)

// Target is the schema-qualified name a request addresses.
type Target struct {
	Kind   TargetKind
	Schema string // chosen by Accept-Profile / Content-Profile
	Name   string
}

// Media is what the Accept header negotiated.
type Media struct {
	Single bool // application/vnd.pgrst.object+json: one object, not an array
	CSV    bool // text/csv
	Strip  bool // nulls=stripped on the array or object media type
	// Plan: application/vnd.pgrst.plan, the EXPLAIN instead of the result (explain.go).
	Plan *PlanMedia
	// GeoJSON: application/geo+json, the rows as a FeatureCollection; GeoFunc is
	// PostGIS's ST_AsGeoJSON(record), schema-qualified, set by Plan.
	GeoJSON bool
	GeoFunc string
}

// Preferences are the Prefer header's tokens PostgREST knows, typed; "" is "not given".
type Preferences struct {
	Resolution  string // merge-duplicates | ignore-duplicates
	Missing     string // default | null
	Return      string // representation | minimal | headers-only
	Count       string // exact | planned | estimated
	Tx          string // commit | rollback
	Handling    string // strict | lenient
	MaxAffected int    // valid when HasMaxAffected
	// HasMaxAffected: max-affected=<n> was given.
	HasMaxAffected bool
	// Invalid lists the tokens not understood, for handling=strict.
	Invalid []string
	// rollback: a write ends in a rollback (Tx and db-tx-end decide, in serve).
	rollback bool
}

// Minimal reports whether the client asked for no body (return=minimal or nothing).
func (p Preferences) Minimal() bool { return p.Return == "" || p.Return == "minimal" }

// StrictMaxAffected reports whether max-affected is enforced (only with handling=strict).
func (p Preferences) StrictMaxAffected() bool { return p.HasMaxAffected && p.Handling == "strict" }

// ApiRequest is a parsed request, before anything is looked up in the schema cache.
type ApiRequest struct {
	Method string
	Path   string // the URL path, for request.path
	Target Target
	Prefer Preferences
	Media  Media
	Query  *Query
	// Payload is the raw body of POST, PATCH and PUT (bounded by the handler).
	Payload []byte
	// Headers are the request headers without credentials, for request.headers.
	Headers map[string]string
}

// Parse reads r into an ApiRequest; schemas are the exposed schemas (the first is the
// default profile). The caller bounds r.Body.
func Parse(r *http.Request, schemas []string) (ApiRequest, error) {
	req := ApiRequest{Method: r.Method, Path: r.URL.Path}
	req.Prefer = parsePrefer(r.Header.Values("Prefer"))
	if req.Prefer.Handling == "strict" && len(req.Prefer.Invalid) > 0 {
		return req, errInvalidPreferences(req.Prefer.Invalid)
	}
	var err error
	if req.Target.Schema, err = profile(r, schemas); err != nil {
		return req, err
	}
	accept := r.Header.Get("Accept")
	plan := parsePlanMedia(accept)
	if plan == nil && !acceptable(accept) {
		return req, errNotAcceptable(accept)
	}
	req.Media = Media{
		Single: strings.Contains(accept, "application/vnd.pgrst.object+json"),
		CSV:    strings.Contains(accept, "text/csv"),
		Strip:  stripNulls(accept),
		Plan:   plan,
	}
	for _, part := range strings.Split(accept, ",") {
		mt, _, _ := strings.Cut(part, ";")
		if strings.EqualFold(strings.TrimSpace(mt), "application/geo+json") {
			req.Media.GeoJSON = true
		}
	}
	path := strings.TrimPrefix(r.URL.Path, "/rest/v1/")
	if path == "" {
		req.Target.Kind = TargetRoot
		return req, nil
	}
	req.Target.Kind, req.Target.Name = TargetRelation, path
	if name, ok := strings.CutPrefix(path, "rpc/"); ok {
		req.Target.Kind, req.Target.Name = TargetCall, name
	}
	vals := r.URL.Query()
	if err := checkLimits(r.URL.RawQuery, vals); err != nil {
		return req, err
	}
	if req.Query, err = parseQuery(vals, req.Target.Kind == TargetCall); err != nil {
		return req, err
	}
	if rg := r.Header.Get("Range"); rg != "" && r.Method == http.MethodGet {
		if from, to, ok := parseRange(rg); ok {
			req.Query.Offset[""] = from
			if to >= from {
				req.Query.Limit[""] = to - from + 1
			}
		}
	}
	switch r.Method {
	case http.MethodPost, http.MethodPatch, http.MethodPut:
		if req.Payload, err = readBody(r); err != nil {
			return req, err
		}
	}
	req.Headers = headerMap(r)
	return req, nil
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

// parsePrefer reads the Prefer headers: the first occurrence of a preference wins, values
// outside the known ones are left out (and listed in Invalid, for handling=strict).
func parsePrefer(vals []string) Preferences {
	var p Preferences
	seen := map[string]bool{}
	for _, v := range vals {
		for _, tok := range strings.Split(v, ",") {
			tok = strings.TrimSpace(tok)
			if tok == "" {
				continue
			}
			k, val, _ := strings.Cut(tok, "=")
			ok := preferValues[k][val]
			n := 0
			if k == "max-affected" {
				var err error
				n, err = strconv.Atoi(val)
				ok = err == nil && n >= 0
			}
			if !ok {
				p.Invalid = append(p.Invalid, tok)
				continue
			}
			if seen[k] {
				continue
			}
			seen[k] = true
			switch k {
			case "resolution":
				p.Resolution = val
			case "missing":
				p.Missing = val
			case "return":
				p.Return = val
			case "count":
				p.Count = val
			case "tx":
				p.Tx = val
			case "handling":
				p.Handling = val
			case "max-affected":
				p.MaxAffected, p.HasMaxAffected = n, true
			}
		}
	}
	return p
}

// profile is the schema a request addresses: Accept-Profile for reads, Content-Profile
// for writes, else the first exposed schema.
func profile(r *http.Request, schemas []string) (string, error) {
	h := r.Header.Get("Accept-Profile")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h = r.Header.Get("Content-Profile")
	}
	if h == "" {
		return schemas[0], nil
	}
	for _, sc := range schemas {
		if sc == h {
			return h, nil
		}
	}
	return "", errUnacceptableSchema(h, schemas)
}

// mediaTypes are the bodies this API produces (JSON, the single-object JSON, CSV).
var mediaTypes = map[string]bool{"*/*": true, "application/*": true, "application/json": true, "text/*": true, "text/csv": true,
	"application/vnd.pgrst.object+json": true, "application/vnd.pgrst.object": true, "application/openapi+json": true,
	"application/vnd.pgrst.array+json": true, "application/vnd.pgrst.array": true, "application/geo+json": true}

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

// readBody reads the request body; the handler has bounded it with http.MaxBytesReader.
func readBody(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, errBodyTooLarge()
		}
		return nil, errBodyUnreadable()
	}
	return b, nil
}

func headerMap(r *http.Request) map[string]string {
	m := make(map[string]string, len(r.Header))
	for k, v := range r.Header {
		lk := strings.ToLower(k)
		if lk == "authorization" || lk == "apikey" || lk == "cookie" {
			continue // never copy credentials into settings
		}
		m[lk] = strings.Join(v, ", ")
	}
	return m
}
