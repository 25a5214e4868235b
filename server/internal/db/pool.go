// Package db owns the connections to PostgreSQL: bringing a database up (including a
// private development cluster), migrating it, the two pools, and AsRole, the one way a
// request touches data.
package db

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// LoginRole is the API pool's login role for a database: "<database>_authenticator"
// (or a hash of the name when that is not a plain identifier). Roles are cluster-wide,
// so each deployment (database) needs its own: a shared role's password would be set by
// whichever instance started last, and any of their operators could log into every
// database that role may connect to. The role owns nothing and can only switch into
// anon, authenticated and service_role.
func LoginRole(database string) string {
	if plainIdent.MatchString(database) && len(database)+len("_authenticator") <= 63 {
		return database + "_authenticator"
	}
	sum := sha256.Sum256([]byte(database))
	return "casus_authenticator_" + hex.EncodeToString(sum[:8])
}

var plainIdent = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// Pools are the two connection pools the server uses.
type Pools struct {
	// Owner connects as the database owner: migrations, the auth schema (like GoTrue's
	// supabase_auth_admin), the schema-cache introspection and the grading path.
	Owner *pgxpool.Pool
	// API connects as authenticator; every data-API request switches role inside it.
	API *pgxpool.Pool
}

// Close closes both pools.
func (p *Pools) Close() {
	if p.API != nil {
		p.API.Close()
	}
	if p.Owner != nil {
		p.Owner.Close()
	}
}

// AuthenticatorPassword derives a login role's password from the JWT secret and the
// role's name, so deployments need no extra secret and the value never appears in
// configuration.
func AuthenticatorPassword(secret []byte, role string) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("casus authenticator role " + role))
	return hex.EncodeToString(m.Sum(nil))
}

// apiMinConns is how many API connections stay open while idle, unless
// PoolOptions.APIMinConns says otherwise.
const apiMinConns = 4

// PoolOptions name the login role, size the pools and bound the API's statements.
type PoolOptions struct {
	// Role is the API's login role (DB_AUTHENTICATOR); "" is LoginRole of the database.
	Role string
	// OwnerConns sizes the owner pool (16 when not positive) and, unless APIConns is
	// positive, the API pool too.
	OwnerConns, APIConns int32
	// APIMinConns, when positive, is how many API connections open at start and stay
	// open while idle (apiMinConns otherwise), at most the pool's size.
	APIMinConns int32
	// StatementTimeout, when positive, is the API connections' statement_timeout.
	StatementTimeout time.Duration
}

// OpenPools prepares the database's login role (LoginRole, or opts.Role) and opens both
// pools for a migrated database.
func OpenPools(ctx context.Context, databaseURL string, secret []byte, opts PoolOptions) (*Pools, error) {
	role := opts.Role
	ownerCfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_URL: %w", err)
	}
	if role == "" {
		role = LoginRole(ownerCfg.ConnConfig.Database)
	}
	if !plainIdent.MatchString(role) || len(role) > 63 {
		return nil, fmt.Errorf("DB_AUTHENTICATOR %q must be a lower-case identifier of at most 63 bytes", role)
	}
	// pgx defaults to max(4, CPUs), which starves concurrent requests on small machines
	// (a bcrypt-bound sign-in holds its connection); PostgREST's default pool is 10.
	maxConns := opts.OwnerConns
	if maxConns <= 0 {
		maxConns = 16
	}
	ownerCfg.MaxConns = maxConns
	ownerCfg.AfterConnect = KeepBackendHeap
	owner, err := pgxpool.NewWithConfig(ctx, ownerCfg)
	if err != nil {
		return nil, err
	}
	pw := AuthenticatorPassword(secret, role)
	if err := prepareLoginRole(ctx, owner, role, pw, ownerCfg.ConnConfig.Database); err != nil {
		owner.Close()
		return nil, fmt.Errorf("prepare login role %s: %w", role, err)
	}
	apiCfg := ownerCfg.Copy()
	apiCfg.ConnConfig.User = role
	apiCfg.ConnConfig.Password = pw
	if opts.APIConns > 0 {
		apiCfg.MaxConns = opts.APIConns
	}
	if apiCfg.MinConns == 0 {
		// Connections open at start, not during a ramp of first requests: each new one
		// pays the backend's start, KeepBackendHeap and the role statements' preparation.
		// Bounded, so an idle server holds few backends (pool_min_conns in the URL wins).
		want := int32(apiMinConns)
		if opts.APIMinConns > 0 {
			want = opts.APIMinConns
		}
		apiCfg.MinConns = min(want, apiCfg.MaxConns)
	}
	configureAPI(apiCfg, opts.StatementTimeout)
	api, err := pgxpool.NewWithConfig(ctx, apiCfg)
	if err != nil {
		owner.Close()
		return nil, err
	}
	if err := api.Ping(ctx); err != nil {
		owner.Close()
		api.Close()
		return nil, fmt.Errorf("connect as authenticator: %w", err)
	}
	return &Pools{Owner: owner, API: api}, nil
}

// prepareLoginRole creates or updates the login role and makes the database reachable
// by it and by no other role that only PUBLIC lets in (other deployments' login roles are
// members of the same cluster-wide anon/authenticated/service_role). Identifiers cannot
// be bound: the role name is checked to be a plain identifier, the password is hex.
func prepareLoginRole(ctx context.Context, owner *pgxpool.Pool, role, password, database string) error {
	r, d := pgx.Identifier{role}.Sanitize(), pgx.Identifier{database}.Sanitize()
	create := fmt.Sprintf(`do $$ begin
  if not exists (select 1 from pg_roles where rolname = '%s') then create role %s; end if;
exception when duplicate_object or unique_violation then null; end $$`, role, r)
	for _, stmt := range []string{
		create,
		fmt.Sprintf("alter role %s with login noinherit nosuperuser nocreatedb nocreaterole nobypassrls password '%s'", r, password),
		fmt.Sprintf("grant anon, authenticated, service_role to %s", r),
		// Pipelined requests parse before the role switch runs (see 001_roles.sql).
		fmt.Sprintf("grant usage on schema public to %s", r),
		fmt.Sprintf("revoke connect on database %s from public", d),
		fmt.Sprintf("grant connect on database %s to %s", d, r),
	} {
		if err := alterRoleRetrying(ctx, owner, stmt); err != nil {
			return err
		}
	}
	return nil
}

// configureAPI makes the API connections safe for generated SQL:
//   - jit is off (see below);
//   - statement_timeout is a startup parameter of the connection, so it bounds every
//     message, including the parse and plan of a statement that arrives in the same
//     pipeline as the settings statement (a deeply nested statement prepared before a
//     set_config ran used to parse for seconds with no limit);
//   - statements run unnamed (pgx's exec mode) unless prepared explicitly: the default
//     statement cache kept one server-side prepared statement per distinct SQL text, so
//     forty distinct nested reads grew one backend from 37 MB to 578 MB. The fixed
//     settings statements are prepared once per connection (prepareRoleSetup), short
//     generated ones within fixed bounds (prepareBounded).
func configureAPI(cfg *pgxpool.Config, statementTimeout time.Duration) {
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeExec
	if statementTimeout > 0 {
		cfg.ConnConfig.RuntimeParams["statement_timeout"] = strconv.FormatInt(statementTimeout.Milliseconds(), 10)
	}
	// The data API's statements are short reads and writes, but a nested read within the
	// request limits (eight embeds deep, readable by anon) is estimated past
	// jit_above_cost and spent 0.65 s compiling itself for 2 ms of work: one anonymous
	// request, two-thirds of a core-second. JIT never pays for itself here.
	cfg.ConnConfig.RuntimeParams["jit"] = "off"
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		// The connection's own preparation is fixed work, not a request: a short timeout
		// on a busy machine must not fail it. RESET returns to the startup parameter.
		if _, err := conn.Exec(ctx, "set statement_timeout = 0"); err != nil {
			return err
		}
		if err := KeepBackendHeap(ctx, conn); err != nil {
			return err
		}
		if err := prepareRoleSetup(ctx, conn); err != nil {
			return err
		}
		_, err := conn.Exec(ctx, "reset statement_timeout")
		return err
	}
}

// EnsureDatabase creates the database named in databaseURL when it does not exist,
// connecting to the server's "postgres" database to do so.
func EnsureDatabase(ctx context.Context, databaseURL string) error {
	cfg, err := pgx.ParseConfig(databaseURL)
	if err != nil {
		return fmt.Errorf("DATABASE_URL: %w", err)
	}
	name := cfg.Database
	if name == "" {
		return errors.New("DATABASE_URL names no database")
	}
	cfg.Database = "postgres"
	cfg.ConnectTimeout = 5 * time.Second
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, "select exists(select 1 from pg_database where datname = $1)", name).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, "create database "+pgx.Identifier{name}.Sanitize())
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P04" { // created concurrently
		return nil
	}
	return err
}

// Reachable reports whether a PostgreSQL server answers at databaseURL's address
// (authentication errors still count as reachable: somebody is there).
func Reachable(ctx context.Context, databaseURL string) bool {
	cfg, err := pgx.ParseConfig(databaseURL)
	if err != nil {
		return false
	}
	cfg.Database = "postgres"
	cfg.ConnectTimeout = 3 * time.Second
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err == nil {
		conn.Close(ctx)
		return true
	}
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr)
}

// Bring makes a usable, migrated database available for the server: the configured one,
// or a private cluster under stateDir when none is reachable and the URL was not set
// explicitly. It returns the URL to use and a stop function for a private cluster.
func Bring(ctx context.Context, log *slog.Logger, databaseURL string, explicit bool, stateDir string) (string, func(), error) {
	stop := func() {}
	if !Reachable(ctx, databaseURL) {
		if explicit {
			return "", stop, fmt.Errorf("no PostgreSQL server reachable at DATABASE_URL")
		}
		cl, err := StartPrivateCluster(ctx, log, stateDir)
		if err != nil {
			return "", stop, fmt.Errorf("no PostgreSQL reachable and no private cluster: %w", err)
		}
		databaseURL = cl.URL("casus")
		stop = cl.Stop
	}
	if err := EnsureDatabase(ctx, databaseURL); err != nil {
		stop()
		return "", func() {}, err
	}
	return databaseURL, stop, nil
}

// alterRoleRetrying runs an ALTER ROLE. Roles are cluster-wide, so servers and test processes
// starting at once on other databases of the same cluster may update the same pg_authid row;
// PostgreSQL then fails the loser with "tuple concurrently updated" (XX000), which is safe to retry.
func alterRoleRetrying(ctx context.Context, pool *pgxpool.Pool, stmt string) error {
	var err error
	for attempt := 0; attempt < 8; attempt++ {
		if _, err = pool.Exec(ctx, stmt); err == nil {
			return nil
		}
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "XX000" || !strings.Contains(pgErr.Message, "concurrently updated") {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(attempt+1) * 20 * time.Millisecond):
		}
	}
	return err
}
