package db

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"casus/server/internal/authn"
	"casus/server/internal/jsonx"
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
	// PreRequest, when set, is the statement calling PostgREST's db-pre-request
	// function, run after the settings and before the request's own statements.
	PreRequest string
	// SearchPath, when set, is the search_path of the transaction (PostgREST's: the
	// request's schema, then db-extra-search-path), already quoted.
	SearchPath string
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
	setup, args, err := roleSetup(claims, info, false) // BEGIN READ ONLY sets the mode
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
		if info.PreRequest != "" {
			if _, err := tx.Exec(ctx, info.PreRequest); err != nil {
				return err
			}
		}
		return fn(tx)
	})
}

// SendAsRole runs the statements queue adds as the claims' role in one network round
// trip: the settings AsRole makes, then queue's statements, sent by pgx as one batch that
// ends in a single Sync. PostgreSQL runs everything before a Sync in one implicit
// transaction, so the settings (and read-only mode for ReadOnly) hold for those statements
// and end with them, and a failure rolls them all back, with no BEGIN or COMMIT to send and
// execute. With rollback the batch is wrapped in BEGIN ... ROLLBACK (Prefer: tx=rollback).
// REST and realtime share it, as they share AsRole.
func SendAsRole(ctx context.Context, conn *pgx.Conn, claims *authn.Claims, mode Mode, info RequestInfo, rollback bool, queue func(*pgx.Batch)) error {
	setup, args, err := roleSetup(claims, info, mode == ReadOnly)
	if err != nil {
		return err
	}
	b := &pgx.Batch{}
	if rollback {
		b.Queue("begin")
	}
	b.Queue(setup, args...)
	if info.PreRequest != "" {
		b.Queue(info.PreRequest)
	}
	queue(b)
	if rollback {
		b.Queue("rollback")
	}
	for _, q := range b.QueuedQueries {
		if err := prepareBounded(ctx, conn, q.SQL); err != nil {
			return err
		}
	}
	err = conn.SendBatch(ctx, b).Close()
	if err != nil && conn.PgConn().TxStatus() != 'I' {
		// Only an explicit BEGIN leaves a failed transaction open; end it before the
		// connection goes back to its pool (which would otherwise discard it).
		if _, rerr := conn.Exec(context.WithoutCancel(ctx), "rollback"); rerr != nil {
			conn.Close(context.WithoutCancel(ctx))
		}
	}
	return err
}

// RoleQueue is one transaction of SendEachAsRole: the caller it runs as and the
// statements queue adds.
type RoleQueue struct {
	Claims *authn.Claims
	Queue  func(*pgx.Batch)
}

// SendEachAsRole runs several read-only transactions, each as its own caller, in one
// network round trip: for each, BEGIN, the settings SendAsRole makes, its statements,
// ROLLBACK. Realtime checks a burst of changes for many subscribers with it, so that a
// burst costs one connection and one round trip instead of one of each per subscriber.
// A failing statement fails the rest of the batch too (PostgreSQL skips everything up
// to the batch's Sync): the caller must treat transactions whose results did not arrive
// as not run.
func SendEachAsRole(ctx context.Context, conn *pgx.Conn, info RequestInfo, items []RoleQueue) error {
	b := &pgx.Batch{}
	for _, it := range items {
		setup, args, err := roleSetup(it.Claims, info, true)
		if err != nil {
			return err
		}
		b.Queue("begin")
		b.Queue(setup, args...)
		it.Queue(b)
		b.Queue("rollback")
	}
	prepared := map[string]bool{}
	for _, q := range b.QueuedQueries {
		if prepared[q.SQL] {
			continue
		}
		prepared[q.SQL] = true
		if err := prepareBounded(ctx, conn, q.SQL); err != nil {
			return err
		}
	}
	err := conn.SendBatch(ctx, b).Close()
	if err != nil && conn.PgConn().TxStatus() != 'I' {
		if _, rerr := conn.Exec(context.WithoutCancel(ctx), "rollback"); rerr != nil {
			conn.Close(context.WithoutCancel(ctx))
		}
	}
	return err
}

// roleSetup returns the single statement (and its arguments) that switches role and sets
// the request settings inside a transaction; with readOnly it also makes the transaction
// read-only.
func roleSetup(claims *authn.Claims, info RequestInfo, readOnly bool) (string, []any, error) {
	role := authn.RoleAnon
	var claimsJSON []byte
	sub := ""
	if claims != nil {
		role = claims.Role
		claimsJSON = claims.RawJSON
		sub = claims.Subject
		if claimsJSON == nil && claims.Raw != nil {
			var err error
			if claimsJSON, err = json.Marshal(claims.Raw); err != nil {
				return "", nil, err
			}
		}
	}
	if !allowedRoles[role] {
		return "", nil, ErrRoleNotAllowed{Role: role}
	}
	if claimsJSON == nil {
		claimsJSON = []byte(`{"role":"` + role + `"}`) // role is one of allowedRoles: no escaping needed
	}
	headersJSON := appendJSONObject(nil, info.Headers)
	args := []any{role, string(claimsJSON), sub, info.Method, info.Path, string(headersJSON)}
	if info.SearchPath != "" {
		args = append(args, info.SearchPath)
		if readOnly {
			return setupReadOnlyPath, args, nil
		}
		return setupReadWritePath, args, nil
	}
	if readOnly {
		return setupReadOnly, args, nil
	}
	return setupReadWrite, args, nil
}

// The settings statements. The statement timeout is not among them: it is the API
// connections' own setting (configureAPI), so it also covers parsing and planning.
const (
	setupReadWrite = `select set_config('role', $1, true),
  set_config('request.jwt.claims', $2, true),
  set_config('request.jwt.claim.sub', $3, true),
  set_config('request.jwt.claim.role', $1, true),
  set_config('request.method', $4, true),
  set_config('request.path', $5, true),
  set_config('request.headers', $6, true)`
	// Going read-only is allowed at any point of a transaction (only the way back must
	// come before the first query), so the setup statement can do it.
	setupReadOnly = setupReadWrite + `,
  set_config('transaction_read_only', 'on', true)`
	// The data API's variants also set the search_path, as PostgREST does.
	setupReadWritePath = setupReadWrite + `,
  set_config('search_path', $7, true)`
	setupReadOnlyPath = setupReadOnly + `,
  set_config('search_path', $7, true)`
)

// prepareRoleSetup prepares the settings statements on a new API connection. They
// are the only prepared statements the API keeps: pgx runs a prepared statement by its
// text (one Bind, no Parse), while generated SQL goes unnamed (QueryExecModeExec).
func prepareRoleSetup(ctx context.Context, conn *pgx.Conn) error {
	for _, q := range []string{setupReadWrite, setupReadOnly, setupReadWritePath, setupReadOnlyPath} {
		if _, err := conn.Prepare(ctx, q, q); err != nil {
			return fmt.Errorf("prepare settings statement: %w", err)
		}
	}
	return nil
}

// appendJSONObject encodes a string map as a JSON object, as json.Marshal would (sorted
// keys, invalid UTF-8 replaced), without reflection: it runs on every data-API request.
func appendJSONObject(dst []byte, m map[string]string) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonx.AppendString(dst, k)
		dst = append(dst, ':')
		dst = jsonx.AppendString(dst, m[k])
	}
	return append(dst, '}')
}
