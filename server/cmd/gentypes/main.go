// Command gentypes writes frontend/src/types/database.ts — the supabase-js Database type
// of the exposed schema — from a freshly migrated throwaway database, so the types always
// follow the migrations. With --check it fails when the committed file is stale.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/db"
)

const out = "frontend/src/types/database.ts"

func main() {
	check := flag.Bool("check", false, "fail if the committed file differs")
	flag.Parse()
	if err := run(*check); err != nil {
		fmt.Fprintln(os.Stderr, "gentypes:", err)
		os.Exit(1)
	}
}

func adminURL() string {
	if u := os.Getenv("CASUS_TEST_DATABASE_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

func run(check bool) error {
	ctx := context.Background()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := "casus_types_" + hex.EncodeToString(b)
	admin, err := pgx.Connect(ctx, adminURL())
	if err != nil {
		return err
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "create database "+name); err != nil {
		return err
	}
	defer admin.Exec(context.Background(), "drop database if exists "+name+" with (force)") //nolint:errcheck
	u := adminURL()
	q := ""
	if i := strings.IndexByte(u, '?'); i >= 0 {
		u, q = u[:i], u[i:]
	}
	url := u[:strings.LastIndexByte(u, '/')+1] + name + q
	if _, err := db.Migrate(ctx, url, true); err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	src, err := generate(ctx, conn)
	if err != nil {
		return err
	}
	if check {
		old, _ := os.ReadFile(out)
		if !bytes.Equal(old, []byte(src)) {
			return fmt.Errorf("%s is stale: run `make generate/types`", out)
		}
		return nil
	}
	return os.WriteFile(out, []byte(src), 0o644)
}

type col struct {
	name, typ          string
	nullable, optional bool
}

// typeMapper turns PostgreSQL type names into TypeScript; the schema's own enums become
// references to Database['public']['Enums'], as Supabase's generator writes them.
type typeMapper struct{ enums map[string]bool }

func (m typeMapper) tsType(t string) string {
	if strings.HasSuffix(t, "[]") {
		return m.tsType(strings.TrimSuffix(t, "[]")) + "[]"
	}
	if name := strings.TrimPrefix(t, "public."); m.enums[name] {
		return "Database['public']['Enums']['" + name + "']"
	}
	switch {
	case t == "boolean":
		return "boolean"
	case t == "json" || t == "jsonb":
		return "Json"
	case t == "smallint" || t == "integer" || t == "bigint" || t == "real" || t == "double precision" || strings.HasPrefix(t, "numeric"):
		return "number"
	case t == "void":
		return "undefined"
	}
	return "string"
}

func generate(ctx context.Context, conn *pgx.Conn) (string, error) {
	enums, err := enumTypes(ctx, conn)
	if err != nil {
		return "", err
	}
	m := typeMapper{enums: map[string]bool{}}
	for _, e := range enums {
		m.enums[e.name] = true
	}
	composites, err := compositeTypes(ctx, conn, m)
	if err != nil {
		return "", err
	}
	rows, err := conn.Query(ctx, `
		select c.relname, c.relkind, a.attname, format_type(a.atttypid, a.atttypmod), not a.attnotnull,
		       a.atthasdef or a.attidentity <> '' or a.attgenerated <> '' or not a.attnotnull
		from pg_class c join pg_namespace n on n.oid = c.relnamespace
		join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
		where n.nspname = 'public' and c.relkind in ('r', 'v', 'p')
		order by c.relname, a.attnum`)
	if err != nil {
		return "", err
	}
	tables, views := map[string][]col{}, map[string][]col{}
	for rows.Next() {
		var rel, kind, name, typ string
		var nullable, optional bool
		if err := rows.Scan(&rel, &kind, &name, &typ, &nullable, &optional); err != nil {
			return "", err
		}
		c := col{name, m.tsType(typ), nullable, optional}
		if kind == "v" {
			views[rel] = append(views[rel], c)
		} else {
			tables[rel] = append(tables[rel], c)
		}
	}
	rows.Close()
	rels, err := relationships(ctx, conn)
	if err != nil {
		return "", err
	}
	frows, err := conn.Query(ctx, `
		select p.proname, coalesce(p.proargnames, '{}'), array(select format_type(t, null) from unnest(p.proargtypes::oid[]) t),
		       p.pronargdefaults, format_type(p.prorettype, null), p.proretset, t.typtype = 'c' or p.prorettype = 'record'::regtype,
		       coalesce(t.typrelid, 0)::oid::regclass::text,
		       -- the row shape: RETURNS TABLE / OUT columns, else the composite type's attributes
		       coalesce((select array_agg(a.n || ':' || format_type(a.t, null) order by a.i)
		                 from unnest(p.proallargtypes, p.proargmodes, p.proargnames) with ordinality a(t, m, n, i)
		                 where a.m in ('t', 'o', 'b')),
		                (select array_agg(at.attname || ':' || format_type(at.atttypid, at.atttypmod) order by at.attnum)
		                 from pg_attribute at where at.attrelid = t.typrelid and at.attnum > 0 and not at.attisdropped),
		                '{}')
		from pg_proc p join pg_namespace n on n.oid = p.pronamespace join pg_type t on t.oid = p.prorettype
		where n.nspname = 'public' and p.prokind = 'f' and has_function_privilege('authenticated', p.oid, 'execute')
		  and p.proname not like 'casus\_%' and p.prorettype <> 'trigger'::regtype
		  and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
		order by p.proname`)
	if err != nil {
		return "", err
	}
	var fn strings.Builder
	for frows.Next() {
		var name, ret, relname string
		var argNames, argTypes, outCols []string
		var ndef int
		var set, row bool
		if err := frows.Scan(&name, &argNames, &argTypes, &ndef, &ret, &set, &row, &relname, &outCols); err != nil {
			return "", err
		}
		fmt.Fprintf(&fn, "      %s: {\n        Args: {", name)
		if len(argTypes) == 0 {
			fn.WriteString(" [_ in never]: never")
		}
		for i, t := range argTypes {
			an := fmt.Sprintf("arg%d", i)
			if i < len(argNames) && argNames[i] != "" {
				an = argNames[i]
			}
			opt := ""
			if i >= len(argTypes)-ndef {
				opt = "?"
			}
			fmt.Fprintf(&fn, " %s%s: %s;", an, opt, m.tsType(t))
		}
		retTS := m.tsType(ret)
		if row {
			retTS = "Record<string, unknown>"
			rel := strings.TrimPrefix(relname, "public.")
			if r, ok := tables[rel]; ok && r != nil {
				retTS = "Database['public']['Tables']['" + rel + "']['Row']"
			} else if r, ok := views[rel]; ok && r != nil {
				retTS = "Database['public']['Views']['" + rel + "']['Row']"
			} else if len(outCols) > 0 {
				// Like Supabase's generator: the declared columns, typed non-null (Postgres
				// records no nullability for function results).
				var rs strings.Builder
				rs.WriteString("{")
				for _, oc := range outCols {
					n, t, _ := strings.Cut(oc, ":")
					fmt.Fprintf(&rs, " %s: %s;", n, m.tsType(t))
				}
				rs.WriteString(" }")
				retTS = rs.String()
			}
		}
		if set {
			retTS += "[]"
		}
		fmt.Fprintf(&fn, " };\n        Returns: %s;\n      };\n", retTS)
	}
	frows.Close()

	var b strings.Builder
	b.WriteString("// Generated by server/cmd/gentypes from the migrations (make generate/types). Do not edit.\n")
	b.WriteString("export type Json = string | number | boolean | null | { [key: string]: Json | undefined } | Json[];\n\n")
	b.WriteString("export type Database = {\n  public: {\n    Tables: {\n")
	for _, name := range sortedKeys(tables) {
		cols := tables[name]
		fmt.Fprintf(&b, "      %s: {\n        Row: {%s };\n        Insert: {%s };\n        Update: {%s };\n        Relationships: [%s];\n      };\n",
			name, fields(cols, "row"), fields(cols, "insert"), fields(cols, "update"), rels[name])
	}
	b.WriteString("    };\n    Views: {\n")
	for _, name := range sortedKeys(views) {
		fmt.Fprintf(&b, "      %s: {\n        Row: {%s };\n        Relationships: [];\n      };\n", name, fields(views[name], "row"))
	}
	b.WriteString("    };\n    Functions: {\n")
	b.WriteString(fn.String())
	b.WriteString("    };\n")
	enumEntries := make([]string, len(enums))
	for i, e := range enums {
		enumEntries[i] = e.name + ": " + strings.Join(quoted(e.labels), " | ")
	}
	writeSection(&b, "Enums", enumEntries)
	var compositeEntries []string
	for _, name := range sortedKeys(composites) {
		compositeEntries = append(compositeEntries, name+": {"+fields(composites[name], "row")+" }")
	}
	writeSection(&b, "CompositeTypes", compositeEntries)
	b.WriteString("  };\n};\n\n")
	b.WriteString("export type Tables<T extends keyof Database['public']['Tables']> = Database['public']['Tables'][T]['Row'];\n")
	b.WriteString("export type Views<T extends keyof Database['public']['Views']> = Database['public']['Views'][T]['Row'];\n")
	return b.String(), nil
}

// relationships renders each table's foreign keys the way supabase-js's types expect,
// so typed selects with embeds resolve.
func relationships(ctx context.Context, conn *pgx.Conn) (map[string]string, error) {
	rows, err := conn.Query(ctx, `
		select c.relname, con.conname,
		       array(select a.attname from unnest(con.conkey) k join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k),
		       fc.relname,
		       array(select a.attname from unnest(con.confkey) k join pg_attribute a on a.attrelid = con.confrelid and a.attnum = k),
		       exists (select 1 from pg_index i where i.indrelid = con.conrelid and i.indisunique and i.indkey::int2[] = con.conkey)
		from pg_constraint con
		join pg_class c on c.oid = con.conrelid join pg_namespace n on n.oid = c.relnamespace
		join pg_class fc on fc.oid = con.confrelid join pg_namespace fn on fn.oid = fc.relnamespace
		where con.contype = 'f' and n.nspname = 'public' and fn.nspname = 'public'
		order by c.relname, con.conname`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var rel, name, ref string
		var cols, refCols []string
		var oneToOne bool
		if err := rows.Scan(&rel, &name, &cols, &ref, &refCols, &oneToOne); err != nil {
			return nil, err
		}
		out[rel] += fmt.Sprintf("\n          { foreignKeyName: %q; columns: [%s]; isOneToOne: %v; referencedRelation: %q; referencedColumns: [%s] },",
			name, quoteList(cols), oneToOne, ref, quoteList(refCols))
	}
	for k, v := range out {
		out[k] = v + "\n        "
	}
	return out, rows.Err()
}

func quoteList(l []string) string { return strings.Join(quoted(l), ", ") }

// quoted is each string as a TypeScript string literal.
func quoted(l []string) []string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = fmt.Sprintf("%q", s)
	}
	return q
}

// writeSection writes one of the schema's type sections, entry per line, or the
// never-record Supabase's generator writes for an empty one.
func writeSection(b *strings.Builder, name string, entries []string) {
	if len(entries) == 0 {
		fmt.Fprintf(b, "    %s: { [_ in never]: never };\n", name)
		return
	}
	fmt.Fprintf(b, "    %s: {\n", name)
	for _, e := range entries {
		fmt.Fprintf(b, "      %s;\n", e)
	}
	b.WriteString("    };\n")
}

func fields(cols []col, mode string) string {
	var s strings.Builder
	for _, c := range cols {
		t := c.typ
		if c.nullable {
			t += " | null"
		}
		opt := ""
		if mode == "update" || (mode == "insert" && c.optional) {
			opt = "?"
		}
		fmt.Fprintf(&s, " %s%s: %s;", c.name, opt, t)
	}
	return s.String()
}

func sortedKeys(m map[string][]col) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

type enumType struct {
	name   string
	labels []string
}

// enumTypes lists the exposed schema's enums by name.
func enumTypes(ctx context.Context, conn *pgx.Conn) ([]enumType, error) {
	rows, err := conn.Query(ctx, `
		select t.typname, array_agg(e.enumlabel order by e.enumsortorder)
		from pg_type t join pg_namespace n on n.oid = t.typnamespace join pg_enum e on e.enumtypid = t.oid
		where n.nspname = 'public'
		group by t.typname order by t.typname`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []enumType
	for rows.Next() {
		var e enumType
		if err := rows.Scan(&e.name, &e.labels); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// compositeTypes returns the exposed schema's standalone composite types (CREATE TYPE … AS),
// their attributes nullable as PostgreSQL records no constraint on them.
func compositeTypes(ctx context.Context, conn *pgx.Conn, m typeMapper) (map[string][]col, error) {
	rows, err := conn.Query(ctx, `
		select c.relname, a.attname, format_type(a.atttypid, a.atttypmod)
		from pg_class c join pg_namespace n on n.oid = c.relnamespace
		join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
		where n.nspname = 'public' and c.relkind = 'c'
		order by c.relname, a.attnum`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]col{}
	for rows.Next() {
		var rel, name, typ string
		if err := rows.Scan(&rel, &name, &typ); err != nil {
			return nil, err
		}
		out[rel] = append(out[rel], col{name: name, typ: m.tsType(typ), nullable: true})
	}
	return out, rows.Err()
}
