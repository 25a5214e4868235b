package postgrest

import (
	"context"
	"maps"
	"slices"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Schema is a snapshot of the exposed schemas: relations, columns, keys, foreign keys
// and functions. Every identifier in generated SQL comes from here.
type Schema struct {
	Relations map[string]*Relation // "schema.name"
	Funcs     map[string]*Func
	// Overloads lists every callable function of a name ("schema.name"), in creation
	// order: PostgREST chooses among them by the arguments' names.
	Overloads map[string][]*Func
	// GeoJSONFunc is PostGIS's ST_AsGeoJSON(record), schema-qualified and quoted, when
	// the extension is installed (application/geo+json); "" otherwise.
	GeoJSONFunc string
	// rels holds each relation's relationships, listed once per load (relationships.go).
	rels map[*Relation][]*relCandidate
}

// Relation is a table or view.
type Relation struct {
	Schema, Name string
	IsView       bool
	// RowSecurity is true when row-level security is enabled on the table.
	RowSecurity bool
	Columns     []Column
	col         map[string]*Column
	PK          []string
	FKs         []*FK // foreign keys from this relation
	// Computed fields and computed relationships: functions taking this row type.
	Computed     map[string]*ComputedField
	ComputedRels []*ComputedRel
	oid          uint32
}

// Column of a relation.
type Column struct {
	Name     string
	Type     string // format_type: "uuid", "integer", "text[]" …
	Nullable bool
	Default  bool
	// DefaultExpr is the column default as PostgreSQL prints it (pg_get_expr): catalog
	// text written by the schema owner, used for Prefer: missing=default.
	DefaultExpr string
}

// FK is a foreign key (From.Cols → To.Cols).
type FK struct {
	Name     string
	From, To *Relation
	FromCols []string
	ToCols   []string
	// OneToOne: FromCols are the source's primary key or a unique constraint.
	OneToOne bool
	// FromView, ToView: an end is a view inheriting the key from its table.
	FromView, ToView bool
}

// Func is a callable function.
type Func struct {
	Schema, Name string
	Args         []Arg
	ReturnType   string // format_type of the return
	ReturnsSet   bool
	ReturnsRow   bool // composite / table
	Void         bool
	Volatile     bool
	SingleJSON   bool // one unnamed json/jsonb parameter
	// Unnamed is the type of the one unnamed parameter (json, jsonb, text, xml, bytea)
	// PostgREST passes the raw request body to; "" for other functions.
	Unnamed string
	// Table is the relation whose row type the function returns, for embedding on its
	// results; nil for other return types.
	Table *Relation
	// Result describes the rows a set- or row-returning function yields, so filters,
	// select and order on them are checked like a table's; nil for other functions.
	Result *Relation
	oid    uint32
}

// Arg of a function.
type Arg struct {
	Name       string
	Type       string
	HasDefault bool
}

// Column looks a column up.
func (r *Relation) Column(name string) *Column { return r.col[name] }

type cache struct{ v atomic.Pointer[Schema] }

func (c *cache) get() *Schema { return c.v.Load() }

// loadSchema introspects pg_catalog for the exposed schemas.
func loadSchema(ctx context.Context, pool *pgxpool.Pool, schemas []string) (*Schema, error) {
	s := &Schema{Relations: map[string]*Relation{}, Funcs: map[string]*Func{}, Overloads: map[string][]*Func{}}
	rows, err := pool.Query(ctx, `
		select n.nspname, c.relname, c.relkind in ('v','m'), c.relrowsecurity, a.attname, format_type(a.atttypid, a.atttypmod), not a.attnotnull, a.atthasdef,
		       coalesce(pg_get_expr(d.adbin, d.adrelid),
		         -- an identity column's default (missing=default): its sequence's next value
		         case when a.attidentity = 'd' then format('nextval(%L::regclass)', pg_get_serial_sequence(format('%I.%I', n.nspname, c.relname), a.attname)) end, '')
		from pg_class c join pg_namespace n on n.oid = c.relnamespace
		join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
		left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum and a.attgenerated = ''
		where n.nspname = any($1) and c.relkind in ('r','v','m','p','f')
		order by n.nspname, c.relname, a.attnum`, schemas)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var sch, name, col, typ, defExpr string
		var view, rls, nullable, def bool
		if err := rows.Scan(&sch, &name, &view, &rls, &col, &typ, &nullable, &def, &defExpr); err != nil {
			rows.Close()
			return nil, err
		}
		key := sch + "." + name
		r := s.Relations[key]
		if r == nil {
			r = &Relation{Schema: sch, Name: name, IsView: view, RowSecurity: rls, col: map[string]*Column{}}
			s.Relations[key] = r
		}
		r.Columns = append(r.Columns, Column{Name: col, Type: typ, Nullable: nullable, Default: def, DefaultExpr: defExpr})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, r := range s.Relations {
		for i := range r.Columns {
			r.col[r.Columns[i].Name] = &r.Columns[i]
		}
	}
	// Primary keys and foreign keys.
	rows, err = pool.Query(ctx, `
		select con.contype, con.conname, n.nspname, c.relname,
		       array(select a.attname from unnest(con.conkey) with ordinality k(n, o) join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.n order by k.o),
		       coalesce(fn.nspname, ''), coalesce(fc.relname, ''),
		       coalesce(array(select a.attname from unnest(con.confkey) with ordinality k(n, o) join pg_attribute a on a.attrelid = con.confrelid and a.attnum = k.n order by k.o), '{}')
		from pg_constraint con
		join pg_class c on c.oid = con.conrelid join pg_namespace n on n.oid = c.relnamespace
		left join pg_class fc on fc.oid = con.confrelid left join pg_namespace fn on fn.oid = fc.relnamespace
		where con.contype in ('p','f') and n.nspname = any($1)
		order by con.conname`, schemas)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var typ, name, sch, rel, fsch, frel string
		var cols, fcols []string
		if err := rows.Scan(&typ, &name, &sch, &rel, &cols, &fsch, &frel, &fcols); err != nil {
			rows.Close()
			return nil, err
		}
		r := s.Relations[sch+"."+rel]
		if r == nil {
			continue
		}
		if typ == "p" {
			r.PK = cols
			continue
		}
		to := s.Relations[fsch+"."+frel]
		if to == nil {
			continue // references a table outside the exposed schemas (auth.users)
		}
		r.FKs = append(r.FKs, &FK{Name: name, From: r, To: to, FromCols: cols, ToCols: fcols})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// Functions.
	rows, err = pool.Query(ctx, `
		select p.oid, n.nspname, p.proname, coalesce(p.proargnames, '{}'), coalesce(p.proargmodes::text[], '{}'),
		       array(select format_type(t, null) from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) t),
		       p.pronargdefaults, format_type(p.prorettype, null), p.proretset,
		       t.typtype = 'c' or p.prorettype = 'record'::regtype, p.prorettype = 'void'::regtype, p.provolatile = 'v',
		       coalesce(rn.nspname || '.' || rc.relname, '')
		from pg_proc p join pg_namespace n on n.oid = p.pronamespace join pg_type t on t.oid = p.prorettype
		left join pg_class rc on rc.reltype = p.prorettype and rc.relkind in ('r', 'v', 'm', 'f', 'p')
		left join pg_namespace rn on rn.oid = rc.relnamespace
		where n.nspname = any($1) and p.prokind = 'f' and p.prorettype <> 'trigger'::regtype
		  -- Functions of extensions (pgcrypto, pg_trgm, unaccent in public) are not the API.
		  and not exists (select 1 from pg_depend d
		                  where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')
		order by p.oid`, schemas)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var sch, name, ret, table string
		var names, modes, types []string
		var ndef int
		f := &Func{}
		if err := rows.Scan(&f.oid, &sch, &name, &names, &modes, &types, &ndef, &ret, &f.ReturnsSet, &f.ReturnsRow, &f.Void, &f.Volatile, &table); err != nil {
			rows.Close()
			return nil, err
		}
		f.Schema, f.Name, f.ReturnType = sch, name, ret
		var in []Arg
		for i, t := range types {
			mode := "i"
			if i < len(modes) {
				mode = modes[i]
			}
			if mode == "o" || mode == "t" {
				continue
			}
			a := Arg{Type: t}
			if i < len(names) {
				a.Name = names[i]
			}
			in = append(in, a)
		}
		for i := len(in) - ndef; i < len(in); i++ {
			if i >= 0 {
				in[i].HasDefault = true
			}
		}
		f.Args = in
		if !callable(in) {
			continue // PostgREST cannot pass several unnamed parameters
		}
		if len(in) == 1 && in[0].Name == "" {
			f.Unnamed = in[0].Type
		}
		f.SingleJSON = f.Unnamed == "json" || f.Unnamed == "jsonb"
		f.Table = s.Relations[table]
		key := sch + "." + name
		s.Overloads[key] = append(s.Overloads[key], f)
		if old := s.Funcs[key]; old != nil && len(old.Args) < len(f.Args) {
			continue // Funcs keeps the simplest overload
		}
		s.Funcs[key] = f
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if err := loadRelationshipExtras(ctx, pool, s, schemas); err != nil {
		return nil, err
	}
	return s, describeResults(ctx, pool, s)
}

// describeResults learns the result columns of every set- or row-returning function in
// the cache: the attributes of a composite return type, or the OUT/TABLE parameters.
// A function returning a set of a scalar yields one column named after the function.
func describeResults(ctx context.Context, pool *pgxpool.Pool, s *Schema) error {
	byOID := map[uint32]*Func{}
	for _, f := range slices.Concat(slices.Collect(maps.Values(s.Overloads))...) {
		if f.ReturnsSet || f.ReturnsRow {
			f.Result = &Relation{Schema: f.Schema, Name: f.Name, col: map[string]*Column{}}
			byOID[f.oid] = f
		}
	}
	rows, err := pool.Query(ctx, `
		select f.oid, coalesce(a.attname, p.name), format_type(coalesce(a.atttypid, p.typ), null)
		from pg_proc f
		left join pg_type t on t.oid = f.prorettype and t.typtype = 'c'
		left join pg_attribute a on a.attrelid = t.typrelid and a.attnum > 0 and not a.attisdropped
		left join lateral (select unnest(f.proargnames) as name, unnest(coalesce(f.proallargtypes, f.proargtypes::oid[])) as typ,
		                          unnest(coalesce(f.proargmodes::text[], array_fill('i'::text, array[f.pronargs]))) as mode,
		                          generate_subscripts(coalesce(f.proallargtypes, f.proargtypes::oid[]), 1) as ord) p
		  on t.oid is null and p.mode in ('t', 'o')
		where f.oid = any($1) and (a.attname is not null or p.name is not null)
		order by f.oid, a.attnum, p.ord`, slices.Collect(maps.Keys(byOID)))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var oid uint32
		var c Column
		if err := rows.Scan(&oid, &c.Name, &c.Type); err != nil {
			return err
		}
		if f := byOID[oid]; f != nil {
			f.Result.Columns = append(f.Result.Columns, c)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, f := range byOID {
		if len(f.Result.Columns) == 0 {
			f.Result.Columns = []Column{{Name: f.Name, Type: f.ReturnType}}
		}
		for i := range f.Result.Columns {
			f.Result.col[f.Result.Columns[i].Name] = &f.Result.Columns[i]
		}
	}
	return nil
}

// watch loads the cache each time it starts listening on pgrst (PostgREST's channel),
// then reloads it on every NOTIFY ('reload schema' or empty), and the settings with it
// on 'reload config', until ctx ends. DDL committed before LISTEN took effect
// (at start, or while reconnecting) notified nobody, so the load follows the LISTEN. The
// first attempt's outcome goes to started: a failure there ends the watcher.
func (srv *Server) watch(ctx context.Context, started chan<- error) {
	for ctx.Err() == nil {
		conn, err := pgx.Connect(ctx, srv.d.DatabaseURL)
		if err == nil {
			_, err = conn.Exec(ctx, "listen pgrst")
		}
		if err == nil && started == nil {
			// Back after a lost connection: a 'reload config' may have gone unheard.
			if cerr := srv.ReloadConfig(ctx); cerr != nil && ctx.Err() == nil {
				srv.d.Log.Error("postgrest: config reload", "err", cerr)
			}
		}
		if err == nil {
			err = srv.Reload(ctx)
		}
		if started != nil {
			started <- err
			if err != nil {
				if conn != nil {
					_ = conn.Close(context.Background())
				}
				return
			}
			started = nil
		} else if err != nil && ctx.Err() == nil {
			srv.d.Log.Error("postgrest: schema reload", "err", err)
		}
		for err == nil {
			nt, werr := conn.WaitForNotification(ctx)
			if werr != nil {
				err = werr
				break
			}
			switch nt.Payload {
			case "", "reload schema":
				if lerr := srv.Reload(ctx); lerr != nil {
					srv.d.Log.Error("postgrest: schema reload", "err", lerr)
				}
			case "reload config":
				if lerr := srv.ReloadConfig(ctx); lerr != nil && ctx.Err() == nil {
					srv.d.Log.Error("postgrest: config reload", "err", lerr)
				}
			}
		}
		if conn != nil {
			_ = conn.Close(context.Background())
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// callable is PostgREST's rule for the functions it serves: named parameters only, or a
// single unnamed one of a type it can pass the request body as.
func callable(in []Arg) bool {
	unnamed := 0
	for _, a := range in {
		if a.Name == "" {
			unnamed++
		}
	}
	switch unnamed {
	case 0:
		return true
	case 1:
		switch in[0].Type {
		case "bytea", "json", "jsonb", "text", "xml":
			return true
		}
	}
	return false
}
