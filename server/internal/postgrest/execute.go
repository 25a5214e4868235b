package postgrest

// Stage 4 of the pipeline: execute runs a plan's statement in one transaction as the
// caller's role with PostgREST's settings (db.AsRole, db.SendAsRole) and decides, before
// commit, what must roll a write back: a single object asked for but not one row
// written, max-affected exceeded, tx=rollback.

import (
	"context"
	"errors"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"casus/server/internal/authn"
	"casus/server/internal/db"
)

// result is what every statement returns: the JSON body, its row count, the total.
type result struct {
	body  []byte // scanned straight into bytes: one copy of the body, not two
	rows  int
	total *int64
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

// exchange is one request's execution: who asks, and the buffer its body is read into
// (taken from the pool on first use, returned once the response is written).
type exchange struct {
	ctx      context.Context
	id       *authn.Identity
	settings *Settings
	body     *bodyBuffer
}

func (x *exchange) bodyScanner() *bodyBuffer {
	if x.body == nil {
		x.body = bodyPool.Get().(*bodyBuffer)
	}
	return x.body
}

func (x *exchange) release() {
	if x.body != nil && cap(x.body.b) <= maxPooledBody {
		x.body.b = x.body.b[:0]
		bodyPool.Put(x.body)
	}
	x.body = nil
}

// requestInfo is what the database learns of req: PostgREST's request settings, its
// search_path and the db-pre-request function to call.
func (x *exchange) requestInfo(req *ApiRequest) db.RequestInfo {
	return db.RequestInfo{Method: req.Method, Path: req.Path, Headers: req.Headers, PreRequest: x.settings.PreRequestSQL,
		SearchPath: x.settings.searchPath(req.Target.Schema)}
}

// mode is the transaction a plan needs.
func mode(p ActionPlan) db.Mode {
	switch p := p.(type) {
	case *MutatePlan:
		return db.ReadWrite
	case *CallPlan:
		if !p.ReadOnly {
			return db.ReadWrite
		}
	}
	return db.ReadOnly
}

// execute runs p and returns its result row.
func (s *Server) execute(x *exchange, p ActionPlan) (result, error) {
	req := p.Request()
	if m, ok := p.(*MutatePlan); ok && m.Empty {
		return result{body: []byte("[]")}, nil
	}
	sql, args := Statement(p)
	var explain, exact string
	if rp, ok := p.(*ReadPlan); ok && (rp.Count == "planned" || rp.Count == "estimated") {
		explain, exact = countStatements(rp)
		if estimateMayReveal(x.id, rp.Root.Rel) {
			// The planner estimates from the whole table's statistics, rows the caller
			// cannot read included: count what the caller can see instead.
			sql, explain = exact, ""
		}
	}
	plain := plainStatement(p)
	md := mode(p)
	info := x.requestInfo(req)
	pref := req.Prefer
	// A write answering a single object must change exactly one row: decided before commit.
	singular := md == db.ReadWrite && req.Media.Single
	if explain == "" && !(md == db.ReadWrite && pref.StrictMaxAffected()) && !singular {
		// Nothing to decide between statements: one round trip.
		res, err := s.pipelined(x, md, info, sql, args, plain, md == db.ReadWrite && pref.rollback)
		if err != nil {
			return res, s.dbError(x, p, err)
		}
		return res, nil
	}
	var res result
	rollback := errors.New("rollback requested")
	err := db.AsRole(x.ctx, s.d.API, x.id.Claims, md, info, func(tx pgx.Tx) error {
		if plain {
			tag, err := tx.Exec(x.ctx, sql, args...)
			if err != nil {
				return err
			}
			res = plainResult(tag)
		} else {
			stmt, planned := sql, (*int64)(nil)
			if explain != "" {
				n, err := plannedRows(x.ctx, tx, explain, args)
				if err != nil {
					return err
				}
				if max := int64(x.settings.MaxRows); pref.Count == "estimated" && (max == 0 || n <= max) {
					stmt = exact
				} else {
					planned = &n
				}
			}
			if err := x.scanResult(tx.QueryRow(x.ctx, stmt, args...), &res); err != nil {
				return err
			}
			if planned != nil {
				res.total = planned
			}
		}
		if md == db.ReadWrite {
			if singular && res.rows != 1 {
				// PostgREST rolls the write back (PGRST116) rather than answer after it.
				return errSingular(res.rows)
			}
			if pref.StrictMaxAffected() && res.rows > pref.MaxAffected {
				return errMaxAffected(res.rows)
			}
			if pref.rollback {
				return rollback
			}
		}
		return nil
	})
	if errors.Is(err, rollback) {
		err = nil
	}
	if err != nil {
		return res, s.dbError(x, p, err)
	}
	return res, nil
}

// estimateMayReveal reports whether the planner's estimate for rel could tell the caller
// about rows it may not read: a table under row-level security, or a view (whose tables
// may be), read by a role that does not bypass it.
func estimateMayReveal(id *authn.Identity, rel *Relation) bool {
	if c := id.Claims; c != nil && c.Role == authn.RoleServiceRole {
		return false
	}
	return rel.RowSecurity || rel.IsView
}

// pipelined runs the statement after the role and claims settings in one round trip and
// one implicit transaction (db.SendAsRole); rollback wraps it in BEGIN ... ROLLBACK.
func (s *Server) pipelined(x *exchange, mode db.Mode, info db.RequestInfo, sql string, args []any, plain, rollback bool) (result, error) {
	var res result
	conn, err := s.d.API.Acquire(x.ctx)
	if err != nil {
		return res, err
	}
	defer conn.Release()
	err = db.SendAsRole(x.ctx, conn.Conn(), x.id.Claims, mode, info, rollback, func(b *pgx.Batch) {
		if plain {
			b.Queue(sql, args...).Exec(func(tag pgconn.CommandTag) error {
				res = plainResult(tag)
				return nil
			})
		} else {
			b.Queue(sql, args...).QueryRow(func(row pgx.Row) error {
				return x.scanResult(row, &res)
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
// into the exchange's pooled buffer.
func (x *exchange) scanResult(row pgx.Row, res *result) error {
	body := x.bodyScanner()
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

// dbError turns an error of a request's statement into the answer PostgREST gives.
// Errors of the database's internals (out of memory, limits, I/O) answer a generic
// error and are logged in full here instead; the statement's own aliases in other
// messages become the names of the relations they stand for.
func (s *Server) dbError(x *exchange, p ActionPlan, err error) error {
	var nr db.ErrRoleNotAllowed
	if errors.As(err, &nr) {
		return errRoleNotAllowed(err.Error())
	}
	if connectionLost(err) {
		return errUnavailable
	}
	var pg *pgconn.PgError
	if !errors.As(err, &pg) {
		return err
	}
	if internalSQLState(pg.Code) {
		s.d.Log.Error("postgrest: database error", "request_id", p.Request().Headers["x-request-id"], "code", pg.Code,
			"message", pg.Message, "detail", pg.Detail, "hint", pg.Hint)
		return errInternal(pg.Code, x.id.HasUserToken)
	}
	e := fromPG(err, x.id.HasUserToken)
	if pe, ok := e.(*Error); ok {
		a := p.aliases()
		pe.Message = a.replace(pe.Message)
		if d, ok := pe.Details.(string); ok {
			pe.Details = a.replace(d)
		}
		if h, ok := pe.Hint.(string); ok {
			pe.Hint = a.replace(h)
		}
	}
	return e
}

// aliases of each plan: the root relation (or function) and every join's target.
func (p *ReadPlan) aliases() *aliasNames   { return newAliasNames(p.Root.Rel.Name, p.Root) }
func (p *MutatePlan) aliases() *aliasNames { return newAliasNames(p.Rel.Name, p.Returning) }
func (p *CallPlan) aliases() *aliasNames   { return newAliasNames(p.Func.Name, p.Result) }

func newAliasNames(root string, n *readNode) *aliasNames {
	a := &aliasNames{root: root, names: map[string]string{}}
	var walk func(n *readNode)
	walk = func(n *readNode) {
		if n == nil {
			return
		}
		for _, j := range n.Joins {
			a.names[j.Alias] = j.Rel.target.Name
			walk(j.Child)
		}
	}
	walk(n)
	return a
}
