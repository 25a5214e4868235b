package db

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"casus/server/internal/authn"
)

// Mode is the transaction access mode a request needs.
type Mode int

const (
	ReadOnly Mode = iota
	ReadWrite
)

// RequestInfo is the per-request context PostgREST exposes to SQL as settings.
type RequestInfo struct {
	Method  string
	Path    string
	Headers map[string]string
	// StatementTimeout, when positive, bounds every statement of the transaction.
	StatementTimeout time.Duration
}

// allowedRoles are the only roles a request may switch into. The role comes from a
// verified JWT, but an allow-list keeps a forged-yet-signed token from naming the owner.
var allowedRoles = map[string]bool{
	authn.RoleAnon:          true,
	authn.RoleAuthenticated: true,
	authn.RoleServiceRole:   true,
}

// ErrRoleNotAllowed is returned when a token names a role requests may not use.
type ErrRoleNotAllowed struct{ Role string }

func (e ErrRoleNotAllowed) Error() string { return fmt.Sprintf("role %q does not exist", e.Role) }

// AsRole runs fn in one transaction as the claims' role, with request.jwt.claims and
// friends set exactly as PostgREST sets them, so RLS policies written for Supabase
// (auth.uid(), auth.role(), auth.jwt()) work unchanged. REST and realtime share it on
// purpose: both must agree on what a caller may see.
//
// The setup travels in the same round trip as fn's first statement when fn uses
// pgx's batch; otherwise it costs one extra round trip.
func AsRole(ctx context.Context, pool *pgxpool.Pool, claims *authn.Claims, mode Mode, info RequestInfo, fn func(pgx.Tx) error) error {
	setup, args, err := RoleSetup(claims, info)
	if err != nil {
		return err
	}
	opts := pgx.TxOptions{AccessMode: pgx.ReadWrite}
	if mode == ReadOnly {
		opts.AccessMode = pgx.ReadOnly
	}
	return pgx.BeginTxFunc(ctx, pool, opts, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, setup, args...); err != nil {
			return err
		}
		return fn(tx)
	})
}

// RoleSetup returns the single statement (and its arguments) that switches role and
// sets the request settings inside an open transaction.
func RoleSetup(claims *authn.Claims, info RequestInfo) (string, []any, error) {
	role := authn.RoleAnon
	var raw map[string]any
	sub := ""
	if claims != nil {
		role = claims.Role
		raw = claims.Raw
		sub = claims.Subject
	}
	if !allowedRoles[role] {
		return "", nil, ErrRoleNotAllowed{Role: role}
	}
	if raw == nil {
		raw = map[string]any{"role": role}
	}
	claimsJSON, err := json.Marshal(raw)
	if err != nil {
		return "", nil, err
	}
	headers := info.Headers
	if headers == nil {
		headers = map[string]string{}
	}
	headersJSON, err := json.Marshal(headers)
	if err != nil {
		return "", nil, err
	}
	timeout := "0"
	if info.StatementTimeout > 0 {
		timeout = fmt.Sprintf("%dms", info.StatementTimeout.Milliseconds())
	}
	const q = `select set_config('role', $1, true),
  set_config('request.jwt.claims', $2, true),
  set_config('request.jwt.claim.sub', $3, true),
  set_config('request.jwt.claim.role', $1, true),
  set_config('request.method', $4, true),
  set_config('request.path', $5, true),
  set_config('request.headers', $6, true),
  set_config('statement_timeout', $7, true)`
	return q, []any{role, string(claimsJSON), sub, info.Method, info.Path, string(headersJSON), timeout}, nil
}
