package postgrest

// Accept: application/vnd.pgrst.plan answers the EXPLAIN of the statement a request
// would run instead of its result, when DB_PLAN_ENABLED (PostgREST's db-plan-enabled)
// allows it.

import (
	"errors"
	"net/http"
	"strings"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/db"
)

// PlanMedia is an Accept of application/vnd.pgrst.plan[+json|+text]; for="…";
// options=analyze|verbose|settings|buffers|wal.
type PlanMedia struct {
	JSON    bool
	For     string
	Options []string // in PostgREST's order
	accept  string
}

// planOptions are EXPLAIN's options PostgREST passes on, in its order.
var planOptions = []string{"analyze", "verbose", "settings", "buffers", "wal"}

// parsePlanMedia reads the plan media type from Accept, nil when it asks for none.
func parsePlanMedia(accept string) *PlanMedia {
	for _, part := range strings.Split(accept, ",") {
		fields := strings.Split(part, ";")
		mt := strings.ToLower(strings.TrimSpace(fields[0]))
		if mt != "application/vnd.pgrst.plan" && mt != "application/vnd.pgrst.plan+json" && mt != "application/vnd.pgrst.plan+text" {
			continue
		}
		p := &PlanMedia{JSON: mt == "application/vnd.pgrst.plan+json", For: "application/json", accept: accept}
		var opts []string
		for _, f := range fields[1:] {
			k, v, _ := strings.Cut(strings.TrimSpace(f), "=")
			switch strings.ToLower(strings.TrimSpace(k)) {
			case "for":
				p.For = strings.Trim(strings.TrimSpace(v), `"`)
			case "options":
				opts = strings.Split(strings.Trim(strings.TrimSpace(v), `"`), "|")
			}
		}
		for _, o := range planOptions {
			for _, g := range opts {
				if strings.EqualFold(strings.TrimSpace(g), o) {
					p.Options = append(p.Options, o)
					break
				}
			}
		}
		return p
	}
	return nil
}

// contentType is PostgREST's media type of a plan answer.
func (p *PlanMedia) contentType() string {
	ct := "application/vnd.pgrst.plan+text"
	if p.JSON {
		ct = "application/vnd.pgrst.plan+json"
	}
	ct += `; for="` + p.For + `"`
	if len(p.Options) > 0 {
		ct += "; options=" + strings.Join(p.Options, "|")
	}
	return ct + "; charset=utf-8"
}

// explain runs EXPLAIN of p's statement as the caller, in p's transaction mode (with
// analyze a write is carried out, as in PostgREST, unless Prefer: tx=rollback).
func (s *Server) explain(x *exchange, p ActionPlan, pm *PlanMedia) (*response, error) {
	req := p.Request()
	sql, args := Statement(p)
	if sql == "" {
		sql = "select" // an empty write runs nothing
	}
	opts := []string{"format text"}
	if pm.JSON {
		opts[0] = "format json"
	}
	opts = append(opts, pm.Options...)
	stmt := "explain (" + strings.Join(opts, ", ") + ") " + sql
	md := mode(p)
	info := x.requestInfo(req)
	var lines []string
	rollback := errors.New("rollback requested")
	err := db.AsRole(x.ctx, s.d.API, x.id.Claims, md, info, func(tx pgx.Tx) error {
		rows, err := tx.Query(x.ctx, stmt, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				return err
			}
			lines = append(lines, line)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if md == db.ReadWrite && req.Prefer.rollback {
			return rollback
		}
		return nil
	})
	if err != nil && !errors.Is(err, rollback) {
		return nil, s.dbError(x, p, err)
	}
	r := &response{status: http.StatusOK, hasBody: true, body: []byte(strings.Join(lines, "\n"))}
	r.set("Content-Type", pm.contentType())
	return r, nil
}
