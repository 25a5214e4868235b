package postgrest

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"
)

// checkSchemas fails start-up when an exposed schema (DB_SCHEMAS) is missing or none of
// the API roles the login role switches into (anon, authenticated, service_role) can use
// it: every request naming it would then answer 42501. The login role itself needs no
// USAGE, as with PostgREST: Supabase projects grant a second schema to anon and
// authenticated only. (Statements the login role cannot prepare run unprepared, after
// the role switch: db.prepareBounded.)
func checkSchemas(ctx context.Context, api *pgxpool.Pool, schemas []string) error {
	rows, err := api.Query(ctx, `
		select s, n.oid is not null,
		       n.oid is not null and (has_schema_privilege(current_user, n.oid, 'USAGE') or exists (
		         select 1 from pg_auth_members m
		         where m.member = (select oid from pg_roles where rolname = current_user)
		           and has_schema_privilege(m.roleid, n.oid, 'USAGE'))),
		       current_user
		from unnest($1::text[]) s left join pg_namespace n on n.nspname = s`, schemas)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name, role string
		var exists, usable bool
		if err := rows.Scan(&name, &exists, &usable, &role); err != nil {
			return err
		}
		switch {
		case !exists:
			return fmt.Errorf("DB_SCHEMAS: schema %q does not exist", name)
		case !usable:
			return fmt.Errorf("DB_SCHEMAS: no API role can use schema %q (grant usage on schema %s to anon, authenticated, and the roles that should read it)", name, name)
		}
	}
	return rows.Err()
}

// warnUnprotected logs, like Supabase's security advisor, every exposed table the API
// roles can reach without row-level security (anyone holding the anon key reads or writes
// all of it) and every exposed view that runs with its owner's rights, bypassing the
// RLS of the tables under it. It runs at start and after each schema reload.
func warnUnprotected(ctx context.Context, owner *pgxpool.Pool, schemas []string, log *slog.Logger) {
	rows, err := owner.Query(ctx, `
		select n.nspname, c.relname, c.relkind in ('v', 'm')
		from pg_class c join pg_namespace n on n.oid = c.relnamespace
		where n.nspname = any($1::text[])
		  and (
		    (c.relkind in ('r', 'p') and not c.relrowsecurity)
		    or (c.relkind = 'v' and not coalesce('security_invoker=true' = any(c.reloptions) or 'security_invoker=on' = any(c.reloptions), false))
		    or c.relkind = 'm'
		  )
		  and exists (
		    select 1 from unnest(array['anon', 'authenticated']) r(role)
		    where exists (select 1 from pg_roles where rolname = r.role)
		      and has_table_privilege(r.role, c.oid, 'SELECT, INSERT, UPDATE, DELETE')
		  )
		order by 1, 2`, schemas)
	if err != nil {
		log.Error("postgrest: security check of exposed tables", "err", err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var schema, name string
		var view bool
		if err := rows.Scan(&schema, &name, &view); err != nil {
			log.Error("postgrest: security check of exposed tables", "err", err)
			return
		}
		if view {
			log.Warn("exposed view bypasses row-level security: it runs with its owner's rights for anon and authenticated (create it with security_invoker = true, or revoke the API roles' access)",
				"relation", schema+"."+name)
		} else {
			log.Warn("exposed table has row-level security off: anyone with the anon key can reach every row (alter table ... enable row level security, or revoke the API roles' access)",
				"relation", schema+"."+name)
		}
	}
}
