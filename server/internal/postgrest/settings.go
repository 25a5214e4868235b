package postgrest

// PostgREST's in-database configuration: `alter role authenticator set pgrst.<name> = …`
// (or `… in database <db> set …`, which wins), read at start and on
// `notify pgrst, 'reload config'`. As in PostgREST, a setting found in the database
// overrides the environment, and DB_CONFIG=false (its db-config) turns the reading off.

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"casus/server/internal/config"
)

// Settings are the data API's PostgREST settings in force.
type Settings struct {
	Schemas     []string // db-schemas, the first is the default
	MaxRows     int      // db-max-rows (0 = unlimited)
	Aggregates  bool     // db-aggregates-enabled
	PlanEnabled bool     // db-plan-enabled
	// TxEnd is db-tx-end: commit, commit-allow-override, rollback or
	// rollback-allow-override.
	TxEnd string
	// ExtraSearchPath is db-extra-search-path: the schemas after the request's own in
	// its search_path.
	ExtraSearchPath []string
	// PreRequest is db-pre-request, "schema.function" or "function"; PreRequestSQL the
	// statement that calls it, identifiers quoted.
	PreRequest, PreRequestSQL string
}

// txEnds are db-tx-end's values.
var txEnds = []string{"commit", "commit-allow-override", "rollback", "rollback-allow-override"}

// rollback reports whether a write with the Prefer tx token pref ("" when none) ends in
// a rollback; override reports whether the token is honoured at all (PostgREST ignores
// it, and leaves it out of Preference-Applied, unless db-tx-end allows an override).
func (s *Settings) rollback(pref string) (rollback, override bool) {
	override = strings.HasSuffix(s.TxEnd, "-allow-override")
	rollback = strings.HasPrefix(s.TxEnd, "rollback")
	if override && pref != "" {
		rollback = pref == "rollback"
	}
	return rollback, override
}

// envSettings are the settings the environment gives.
func envSettings(c *config.Config) *Settings {
	s := &Settings{
		Schemas: c.DBSchemas, MaxRows: c.DBMaxRows, Aggregates: c.DBAggregatesEnabled, PlanEnabled: c.DBPlanEnabled,
		TxEnd: c.DBTxEnd, PreRequest: c.DBPreRequest, ExtraSearchPath: c.DBExtraSearchPath,
	}
	if s.TxEnd == "" {
		s.TxEnd = "commit"
	}
	return s
}

// inDBNames are the pgrst.* settings Casus applies; PostgREST's others are reported once
// at each load as not supported (they are Casus's environment or do not apply).
var inDBNames = []string{"db_aggregates_enabled", "db_extra_search_path", "db_max_rows", "db_plan_enabled", "db_pre_request", "db_schemas", "db_tx_end"}

// loadSettings reads the login role's pgrst.* settings (the database-specific ones win
// over the role-wide ones, as in PostgREST) over the environment's.
func loadSettings(ctx context.Context, owner *pgxpool.Pool, role string, c *config.Config, log *slog.Logger) (*Settings, error) {
	s := envSettings(c)
	if !c.DBConfig {
		return s, s.finish()
	}
	rows, err := owner.Query(ctx, `
		select distinct on (k) k, v from (
		  select substr(kv, 1, strpos(kv, '=') - 1) as k, substr(kv, strpos(kv, '=') + 1) as v, st.setdatabase as d
		  from pg_db_role_setting st, unnest(st.setconfig) kv
		  where st.setrole = (select oid from pg_roles where rolname = $1)
		    and st.setdatabase in (0, (select oid from pg_database where datname = current_database()))
		) x where k like 'pgrst.%'
		order by k, d desc`, role)
	if err != nil {
		return nil, err
	}
	found, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([2]string, error) {
		var kv [2]string
		err := r.Scan(&kv[0], &kv[1])
		return kv, err
	})
	if err != nil {
		return nil, err
	}
	for _, kv := range found {
		name, v := strings.TrimPrefix(kv[0], "pgrst."), kv[1]
		if !slices.Contains(inDBNames, name) {
			log.Warn("postgrest: in-database setting not supported by Casus, ignored", "setting", kv[0])
			continue
		}
		if err := s.set(name, v); err != nil {
			return nil, fmt.Errorf("in-database setting %s: %w", kv[0], err)
		}
	}
	return s, s.finish()
}

// set applies one setting by its in-database name.
func (s *Settings) set(name, v string) error {
	switch name {
	case "db_aggregates_enabled", "db_plan_enabled":
		b, err := parseBool(v)
		if err != nil {
			return err
		}
		if name == "db_plan_enabled" {
			s.PlanEnabled = b
		} else {
			s.Aggregates = b
		}
	case "db_max_rows":
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 {
			return fmt.Errorf("%q is not a row count", v)
		}
		s.MaxRows = n
	case "db_schemas":
		var list []string
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				list = append(list, p)
			}
		}
		if len(list) == 0 {
			return fmt.Errorf("no schema in %q", v)
		}
		s.Schemas = list
	case "db_extra_search_path":
		s.ExtraSearchPath = nil
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				s.ExtraSearchPath = append(s.ExtraSearchPath, p)
			}
		}
	case "db_tx_end":
		s.TxEnd = strings.TrimSpace(v)
	case "db_pre_request":
		s.PreRequest = strings.TrimSpace(v)
	}
	return nil
}

// finish checks the values and prepares the pre-request call.
func (s *Settings) finish() error {
	if !slices.Contains(txEnds, s.TxEnd) {
		return fmt.Errorf("db-tx-end %q: want one of %s", s.TxEnd, strings.Join(txEnds, ", "))
	}
	s.PreRequestSQL = ""
	if s.PreRequest != "" {
		// PostgREST's qualified identifier: "schema.function" or "function" (then found
		// on the search path); each part quoted, so the name is never SQL.
		parts := strings.SplitN(s.PreRequest, ".", 2)
		s.PreRequestSQL = "select " + pgx.Identifier(parts).Sanitize() + "()"
	}
	return nil
}

// searchPath is the search_path of a request to schema, quoted as PostgREST quotes it.
func (s *Settings) searchPath(schema string) string {
	parts := make([]string, 0, 1+len(s.ExtraSearchPath))
	for _, n := range append([]string{schema}, s.ExtraSearchPath...) {
		parts = append(parts, pgx.Identifier{n}.Sanitize())
	}
	return strings.Join(parts, ", ")
}

// parseBool reads a boolean as PostgREST does: true/false in any case, or a number
// (positive is true).
func parseBool(v string) (bool, error) {
	letters := strings.ToLower(strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return -1
	}, v))
	switch letters {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
		return n > 0, nil
	}
	return false, fmt.Errorf("%q is not a boolean", v)
}
