package postgrest

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
)

// ComputedRel is PostgREST's computed relationship: a function taking the row type of
// From and returning rows of To, embedded under the function's name.
type ComputedRel struct {
	Schema, Name string
	From, To     *Relation
	// Single: the function returns one row (not SETOF, or SETOF … ROWS 1), embedded as
	// an object.
	Single bool
}

// ComputedField is a function taking the row type of a relation and returning a scalar:
// selected and filtered like a column, never part of "*".
type ComputedField struct {
	Schema, Name string
	Type         string
}

// loadRelationshipExtras completes the schema cache with what PostgREST derives beyond
// tables' own keys: one-to-one foreign keys (their columns are a primary key or unique),
// the keys a view inherits from the tables it selects from, computed fields and computed
// relationships.
func loadRelationshipExtras(ctx context.Context, pool *pgxpool.Pool, s *Schema, schemas []string) error {
	if err := markOneToOne(ctx, pool, s, schemas); err != nil {
		return err
	}
	if err := addViewKeys(ctx, pool, s, schemas); err != nil {
		return err
	}
	// PostGIS (3.0 and later) makes a Feature of any row.
	var geo string
	err := pool.QueryRow(ctx, `
		select coalesce((select quote_ident(n.nspname) || '.' || quote_ident(p.proname)
		  from pg_proc p join pg_namespace n on n.oid = p.pronamespace
		  where p.proname = 'st_asgeojson' and p.pronargs >= 1 and p.proargtypes[0] = 'record'::regtype
		  order by p.pronargs limit 1), '')`).Scan(&geo)
	if err != nil {
		return err
	}
	s.GeoJSONFunc = geo
	if err := loadComputed(ctx, pool, s, schemas); err != nil {
		return err
	}
	// Every relation's relationships, listed once: embeds look them up per request.
	rels := make(map[*Relation][]*relCandidate, len(s.Relations))
	for _, r := range s.Relations {
		rels[r] = listRelationships(s, r)
	}
	s.rels = rels
	return nil
}

// markOneToOne flags the foreign keys whose columns are exactly a primary key or a unique
// constraint of their table (PostgREST's O2O cardinality).
func markOneToOne(ctx context.Context, pool *pgxpool.Pool, s *Schema, schemas []string) error {
	rows, err := pool.Query(ctx, `
		select n.nspname, c.relname,
		       array(select a.attname from unnest(con.conkey) k(n) join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.n)
		from pg_constraint con join pg_class c on c.oid = con.conrelid join pg_namespace n on n.oid = c.relnamespace
		where con.contype in ('p', 'u') and n.nspname = any($1)`, schemas)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var sch, rel string
		var cols []string
		if err := rows.Scan(&sch, &rel, &cols); err != nil {
			return err
		}
		r := s.Relations[sch+"."+rel]
		if r == nil {
			continue
		}
		for _, fk := range r.FKs {
			if sameCols(fk.FromCols, cols) {
				fk.OneToOne = true
			}
		}
	}
	return rows.Err()
}

// viewOrigin is the table column a view column shows unchanged.
type viewOrigin struct {
	rel *Relation
	col string
}

// addViewKeys gives every view the primary key and foreign keys of the tables it selects
// columns from, as PostgREST does: a view column that is a base table's column unchanged
// (at any depth of views over views) carries that column's keys. PostgreSQL records each
// output column's origin in the view's query tree (resorigtbl, resorigcol).
func addViewKeys(ctx context.Context, pool *pgxpool.Pool, s *Schema, schemas []string) error {
	rows, err := pool.Query(ctx, `
		select c.oid, n.nspname, c.relname, r.ev_action::text
		from pg_rewrite r join pg_class c on c.oid = r.ev_class join pg_namespace n on n.oid = c.relnamespace
		where r.rulename = '_RETURN' and c.relkind in ('v', 'm') and n.nspname = any($1)`, schemas)
	if err != nil {
		return err
	}
	type viewTree struct {
		rel     *Relation
		entries []targetEntry
	}
	var views []viewTree
	oids := map[uint32]bool{}
	for rows.Next() {
		var oid uint32
		var sch, name, tree string
		if err := rows.Scan(&oid, &sch, &name, &tree); err != nil {
			rows.Close()
			return err
		}
		r := s.Relations[sch+"."+name]
		if r == nil {
			continue
		}
		r.oid = oid
		es := topTargetEntries(tree)
		for _, e := range es {
			oids[e.origTable] = true
		}
		views = append(views, viewTree{rel: r, entries: es})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(views) == 0 {
		return nil
	}
	// The origin tables' names and column names (by attribute number).
	type attr struct {
		oid uint32
		num int
	}
	relByOID := map[uint32]*Relation{}
	colName := map[attr]string{}
	for _, v := range views {
		relByOID[v.rel.oid] = v.rel
	}
	rows, err = pool.Query(ctx, `
		select c.oid, n.nspname, c.relname, a.attnum, a.attname
		from pg_class c join pg_namespace n on n.oid = c.relnamespace
		join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
		where c.oid = any($1)`, keys(oids))
	if err != nil {
		return err
	}
	for rows.Next() {
		var oid uint32
		var sch, name, col string
		var num int
		if err := rows.Scan(&oid, &sch, &name, &num, &col); err != nil {
			rows.Close()
			return err
		}
		if r := s.Relations[sch+"."+name]; r != nil {
			relByOID[oid] = r
		}
		colName[attr{oid, num}] = col
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	// Direct origins of each view column, then resolved down to tables.
	direct := map[*Relation]map[string]viewOrigin{}
	for _, v := range views {
		m := map[string]viewOrigin{}
		for _, e := range v.entries {
			rel := relByOID[e.origTable]
			col := colName[attr{e.origTable, e.origCol}]
			if rel == nil || col == "" || v.rel.Column(e.name) == nil {
				continue
			}
			m[e.name] = viewOrigin{rel: rel, col: col}
		}
		direct[v.rel] = m
	}
	var resolve func(o viewOrigin, depth int) (viewOrigin, bool)
	resolve = func(o viewOrigin, depth int) (viewOrigin, bool) {
		if !o.rel.IsView {
			return o, true
		}
		next, ok := direct[o.rel][o.col]
		if !ok || depth > 16 {
			return viewOrigin{}, false
		}
		return resolve(next, depth+1)
	}
	origins := map[*Relation]map[string]viewOrigin{} // view → column → table column
	for _, v := range views {
		m := map[string]viewOrigin{}
		for _, c := range v.rel.Columns {
			if o, ok := direct[v.rel][c.Name]; ok {
				if t, ok := resolve(o, 0); ok {
					m[c.Name] = t
				}
			}
		}
		origins[v.rel] = m
	}
	// viewCols maps a table's columns to the columns of view v showing them (the first one).
	viewCols := func(v *Relation, table *Relation, cols []string) ([]string, bool) {
		out := make([]string, len(cols))
		for i, want := range cols {
			for _, c := range v.Columns {
				if o, ok := origins[v][c.Name]; ok && o.rel == table && o.col == want {
					out[i] = c.Name
					break
				}
			}
			if out[i] == "" {
				return nil, false
			}
		}
		return out, true
	}
	var tableFKs []*FK
	for _, r := range sortedRelations(s) {
		if !r.IsView {
			tableFKs = append(tableFKs, r.FKs...)
		}
	}
	var viewList []*Relation
	for _, v := range views {
		viewList = append(viewList, v.rel)
		// A view keeps its table's primary key when it shows all of its columns.
		for t := range tablesOf(origins[v.rel]) {
			if pk, ok := viewCols(v.rel, t, t.PK); ok && len(t.PK) > 0 && len(v.rel.PK) == 0 {
				v.rel.PK = pk
			}
		}
	}
	slices.SortFunc(viewList, func(a, b *Relation) int { return strings.Compare(a.Schema+"."+a.Name, b.Schema+"."+b.Name) })
	for _, fk := range tableFKs {
		// Sources: the table itself and each view showing the FK columns; targets likewise.
		type end struct {
			rel  *Relation
			cols []string
		}
		froms := []end{{fk.From, fk.FromCols}}
		tos := []end{{fk.To, fk.ToCols}}
		for _, v := range viewList {
			if cols, ok := viewCols(v, fk.From, fk.FromCols); ok {
				froms = append(froms, end{v, cols})
			}
			if cols, ok := viewCols(v, fk.To, fk.ToCols); ok {
				tos = append(tos, end{v, cols})
			}
		}
		for i, f := range froms {
			for j, t := range tos {
				if i == 0 && j == 0 {
					continue // the table's own key
				}
				vfk := &FK{Name: fk.Name, From: f.rel, To: t.rel, FromCols: f.cols, ToCols: t.cols, OneToOne: fk.OneToOne,
					FromView: f.rel.IsView, ToView: t.rel.IsView}
				f.rel.FKs = append(f.rel.FKs, vfk)
			}
		}
	}
	return nil
}

func tablesOf(m map[string]viewOrigin) map[*Relation]bool {
	out := map[*Relation]bool{}
	for _, o := range m {
		out[o.rel] = true
	}
	return out
}

func keys(m map[uint32]bool) []uint32 {
	out := make([]uint32, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// sortedRelations lists the cache's relations by schema and name (a stable order for the
// relationships listed in errors).
func sortedRelations(s *Schema) []*Relation {
	out := make([]*Relation, 0, len(s.Relations))
	for _, r := range s.Relations {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *Relation) int { return strings.Compare(a.Schema+"."+a.Name, b.Schema+"."+b.Name) })
	return out
}

// targetEntry is one output column of a view's query: its name and, when it is a table or
// view column unchanged, that relation and attribute number.
type targetEntry struct {
	name      string
	origTable uint32
	origCol   int
}

var (
	reResname    = regexp.MustCompile(`:resname ((?:\\.|[^\s\\])+)`)
	reResorigtbl = regexp.MustCompile(`:resorigtbl (\d+)`)
	reResorigcol = regexp.MustCompile(`:resorigcol (\d+)`)
	reResjunk    = regexp.MustCompile(`:resjunk (\w+)`)
)

// topTargetEntries reads the target list of the outermost query of a view's rule tree
// (pg_rewrite.ev_action as text). The fields of an entry follow its expression, so the
// last occurrence of each field within the entry is its own, not a subquery's.
func topTargetEntries(tree string) []targetEntry {
	depth := 0
	start := -1
	for i := 0; i < len(tree); i++ {
		switch tree[i] {
		case '\\':
			i++
		case '(', '{':
			depth++
		case ')', '}':
			depth--
		case ':':
			if depth == 2 && strings.HasPrefix(tree[i:], ":targetList ") {
				start = i + len(":targetList ")
			}
		}
		if start >= 0 {
			break
		}
	}
	if start < 0 || start >= len(tree) || tree[start] != '(' {
		return nil
	}
	var out []targetEntry
	depth = 0
	entry := -1
	for i := start; i < len(tree); i++ {
		switch tree[i] {
		case '\\':
			i++
		case '(', '{':
			depth++
			if depth == 2 && tree[i] == '{' {
				entry = i
			}
		case ')', '}':
			if depth == 2 && tree[i] == '}' && entry >= 0 {
				if e, ok := parseTargetEntry(tree[entry : i+1]); ok {
					out = append(out, e)
				}
				entry = -1
			}
			depth--
			if depth == 0 {
				return out
			}
		}
	}
	return out
}

func parseTargetEntry(s string) (targetEntry, bool) {
	last := func(re *regexp.Regexp) string {
		m := re.FindAllStringSubmatch(s, -1)
		if len(m) == 0 {
			return ""
		}
		return m[len(m)-1][1]
	}
	if !strings.HasPrefix(s, "{TARGETENTRY") || last(reResjunk) == "true" {
		return targetEntry{}, false
	}
	name := last(reResname)
	if name == "" || name == "<>" {
		return targetEntry{}, false
	}
	// outToken escapes special characters with a backslash.
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		if name[i] == '\\' && i+1 < len(name) {
			i++
		}
		b.WriteByte(name[i])
	}
	tbl, _ := strconv.ParseUint(last(reResorigtbl), 10, 32)
	col, _ := strconv.Atoi(last(reResorigcol))
	if tbl == 0 || col == 0 {
		return targetEntry{name: b.String()}, true
	}
	return targetEntry{name: b.String(), origTable: uint32(tbl), origCol: col}, true
}

// loadComputed finds computed fields and computed relationships: functions of the exposed
// schemas whose one argument is a relation's row type.
func loadComputed(ctx context.Context, pool *pgxpool.Pool, s *Schema, schemas []string) error {
	rows, err := pool.Query(ctx, `
		select n.nspname, p.proname, an.nspname, ac.relname,
		       coalesce(rn.nspname, ''), coalesce(rc.relname, ''), format_type(p.prorettype, null),
		       p.proretset, p.prorows = 1, rt.typtype = 'c' or p.prorettype = 'record'::regtype
		from pg_proc p join pg_namespace n on n.oid = p.pronamespace
		join pg_class ac on ac.reltype = p.proargtypes[0] join pg_namespace an on an.oid = ac.relnamespace
		join pg_type rt on rt.oid = p.prorettype
		left join pg_class rc on rc.reltype = p.prorettype and rc.relkind in ('r', 'v', 'm', 'f', 'p')
		left join pg_namespace rn on rn.oid = rc.relnamespace
		where p.pronargs = 1 and p.prokind = 'f' and n.nspname = any($1) and ac.relkind in ('r', 'v', 'm', 'f', 'p')
		order by p.oid`, schemas)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var sch, name, asch, arel, rsch, rrel, ret string
		var set, rows1, composite bool
		if err := rows.Scan(&sch, &name, &asch, &arel, &rsch, &rrel, &ret, &set, &rows1, &composite); err != nil {
			return err
		}
		from := s.Relations[asch+"."+arel]
		if from == nil {
			continue
		}
		if rrel != "" {
			if to := s.Relations[rsch+"."+rrel]; to != nil {
				from.ComputedRels = append(from.ComputedRels, &ComputedRel{Schema: sch, Name: name, From: from, To: to, Single: !set || rows1})
			}
			continue
		}
		if set || composite {
			continue
		}
		if from.Computed == nil {
			from.Computed = map[string]*ComputedField{}
		}
		from.Computed[name] = &ComputedField{Schema: sch, Name: name, Type: ret}
	}
	return rows.Err()
}
