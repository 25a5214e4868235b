package postgrest

// Stage 3 of the pipeline: Statement writes the one parameterised statement of a plan.
// It is pure (the same plan always gives the same text and arguments) and cannot fail:
// every check happened in Plan. Identifiers come only from the schema cache and are
// quoted; every value is a bound parameter. Each fragment is written once, in final
// form: nothing here edits SQL text after writing it.
//
// Every statement that answers a body returns one row: the JSON body PostgreSQL built,
// the number of rows in it, and the total (null when not counted).

import (
	"casus/server/internal/postgrest/operator"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Statement is the SQL and arguments that carry out p. A mutation answering without a
// body (return=minimal) is a plain statement: see plainStatement.
func Statement(p ActionPlan) (string, []any) {
	w := &sqlWriter{}
	var sql string
	switch p := p.(type) {
	case *ReadPlan:
		sql = w.read(p, p.Count == "exact")
	case *MutatePlan:
		sql = w.mutate(p)
	case *CallPlan:
		sql = w.call(p)
	}
	return sql, w.args
}

// plainStatement reports whether p's statement returns no result row, only a command
// tag with the affected rows: a minimal write that needs no count of inserted rows.
func plainStatement(p ActionPlan) bool {
	m, ok := p.(*MutatePlan)
	return ok && m.Returning == nil && !(m.Upsert && m.Kind == MutateInsert)
}

// countStatements are, for count=planned|estimated, the EXPLAIN whose top row estimate is
// the planned count and the same read with an exact count (estimated uses it below
// max-rows). Both take the arguments of Statement(p).
func countStatements(p *ReadPlan) (explain, exact string) {
	w := &sqlWriter{}
	list, from := w.readParts(p)
	// The order too, so that every argument of the statement is referenced.
	explain = "explain (format json) select " + list + from + w.orderBy(p.Root)
	w = &sqlWriter{}
	exact = w.read(p, true)
	return explain, exact
}

// sqlWriter accumulates the arguments of one statement and remembers each join's
// condition, written once and used wherever the join is tested.
type sqlWriter struct {
	args  []any
	conds map[*join]string
	// lazyConds write the condition of an empty embed "rel()" when a test first needs it:
	// one that nothing tests must not leave its filters' arguments unreferenced.
	lazyConds map[*join]func() string
	// groups are the GROUP BY expressions of each level with aggregates.
	groups map[*readNode]*grouping
	// laterals are, per level, the LEFT JOIN LATERALs of its to-one spreads, written
	// after the level's relation in its FROM.
	laterals map[*readNode][]string
}

// lateralJoins is what follows a level's relation in its FROM: its to-one spreads.
func (w *sqlWriter) lateralJoins(n *readNode) string {
	return strings.Join(w.laterals[n], "")
}

type grouping struct {
	agg   bool
	exprs []string
}

func (w *sqlWriter) grouping(n *readNode) *grouping {
	if w.groups == nil {
		w.groups = map[*readNode]*grouping{}
	}
	g := w.groups[n]
	if g == nil {
		g = &grouping{}
		w.groups[n] = g
	}
	return g
}

// groupBy is the GROUP BY clause of a level ("" when it has no aggregates): PostgREST
// groups by every non-aggregated column selected.
func (w *sqlWriter) groupBy(n *readNode) string {
	g := w.groups[n]
	if g == nil || !g.agg || len(g.exprs) == 0 {
		return ""
	}
	return " group by " + strings.Join(g.exprs, ", ")
}

func qi(s string) string { return pgx.Identifier{s}.Sanitize() }

func relName(r *Relation) string { return qi(r.Schema) + "." + qi(r.Name) }

// source is what a join reads under its alias: the target relation, or a computed
// relationship's function called on the parent's row.
func source(j *join) string {
	if c := j.Rel.computed; c != nil {
		return qi(c.Schema) + "." + qi(c.Name) + "(" + j.Parent + ") " + j.Alias
	}
	return relName(j.Rel.target) + " " + j.Alias
}

// sqlTypeAliases maps the SQL spellings PostgREST users write in casts to the catalog
// names, so the type can be quoted like every other identifier.
var sqlTypeAliases = map[string]string{"int": "int4", "integer": "int4", "bigint": "int8", "smallint": "int2",
	"real": "float4", "float": "float8", "boolean": "bool", "decimal": "numeric"}

func castType(t string) string {
	if a, ok := sqlTypeAliases[strings.ToLower(t)]; ok {
		t = a
	}
	return qi(t)
}

func (w *sqlWriter) arg(v any) string {
	w.args = append(w.args, v)
	return fmt.Sprintf("$%d", len(w.args))
}

// listBody is the select expression that builds the JSON body from the rows of _r: an
// array, or for a single object (Accept: application/vnd.pgrst.object+json) the first
// row as an object, built by PostgreSQL (respond refuses it unless there is one row).
func listBody(m Media) string {
	return body(m, m.Single)
}

func body(m Media, object bool) string {
	switch {
	case m.GeoJSON && m.GeoFunc != "":
		// PostgREST's FeatureCollection: each row a Feature, its geometry column the
		// geometry and the other columns its properties.
		return "json_build_object('type', 'FeatureCollection', 'features', coalesce(json_agg(" + m.GeoFunc + "(_r)::json), '[]'))::text"
	case object && m.Strip:
		return "json_strip_nulls(coalesce(json_agg(_r)->0, 'null'))::text"
	case object:
		return "coalesce(json_agg(_r)->0, 'null')::text"
	case m.Strip:
		return "json_strip_nulls(coalesce(json_agg(_r), '[]'))::text"
	}
	return "coalesce(json_agg(_r), '[]')::text"
}

func (w *sqlWriter) read(p *ReadPlan, exact bool) string {
	list, from := w.readParts(p)
	count := "null::bigint"
	if exact {
		count = "(select count(*) from (select 1" + from + ") _c)"
	}
	return "select " + listBody(p.Req.Media) + ", count(_r)::int, " + count + " from (select " + list +
		from + w.orderBy(p.Root) + limitOffset(p.Root, p.MaxRows) + ") _r"
}

// readParts are a read's select list and its FROM ... WHERE ... GROUP BY.
func (w *sqlWriter) readParts(p *ReadPlan) (string, string) {
	n := p.Root
	list := w.selectList(n)
	where := w.where(n, true)
	if where != "" {
		where = " where " + where
	}
	return strings.Join(list, ", "), " from " + relName(n.Rel) + " " + n.Alias + w.lateralJoins(n) + where + w.groupBy(n)
}

// expr writes a field read through alias (a computed field: its function called on
// the row).
func (w *sqlWriter) expr(alias string, f fieldExpr) string {
	e := alias + "." + qi(f.Column)
	if f.Computed != nil {
		e = qi(f.Computed.Schema) + "." + qi(f.Computed.Name) + "(" + alias + ")"
	}
	for _, st := range f.JSON {
		e += st.Op + w.arg(st.Key)
	}
	if len(f.JSON) > 0 {
		e = "(" + e + ")"
	}
	return e
}

// item writes a plain column or an aggregate, recording it for the level's GROUP BY.
func (w *sqlWriter) item(n *readNode, alias string, f fieldExpr) string {
	if f.Agg != "" {
		e := "count(*)"
		if f.Column != "" {
			e = f.Agg + "(" + w.expr(alias, f) + ")"
		}
		if f.Cast != "" {
			e = "(" + e + ")::" + castType(f.Cast)
		}
		w.grouping(n).agg = true
		return e
	}
	e := w.expr(alias, f)
	if f.Cast != "" {
		e += "::" + castType(f.Cast)
	}
	w.grouping(n).exprs = append(w.grouping(n).exprs, e)
	return e
}

// selectList writes the select items of a level.
func (w *sqlWriter) selectList(n *readNode) []string {
	var out []string
	for _, it := range n.Items {
		switch {
		case it.Star:
			out = append(out, n.Alias+".*")
			// Grouping by the primary key lets every column appear (functional dependency).
			g := w.grouping(n)
			if len(n.Rel.PK) == 0 {
				g.exprs = append(g.exprs, n.Alias+".*")
			}
			for _, k := range n.Rel.PK {
				g.exprs = append(g.exprs, n.Alias+"."+qi(k))
			}
		case it.Join != nil:
			out = append(out, w.join(n, it.Join)...)
		default:
			out = append(out, w.item(n, n.Alias, it.Expr)+" as "+qi(it.Alias))
		}
	}
	return out
}

// joinCond is the condition tying the target (alias t) to the parent (alias p).
func joinCond(rel *relationship, p, t string) string {
	var conds []string
	switch {
	case rel.computed != nil:
		return "true" // the function is called on the parent's row (see source)
	case rel.junction != nil:
		j := "_j" + t
		var jc []string
		for i, c := range rel.jParent.FromCols {
			jc = append(jc, j+"."+qi(c)+" = "+p+"."+qi(rel.jParent.ToCols[i]))
		}
		for i, c := range rel.jTarget.FromCols {
			jc = append(jc, j+"."+qi(c)+" = "+t+"."+qi(rel.jTarget.ToCols[i]))
		}
		conds = append(conds, "exists (select 1 from "+relName(rel.junction)+" "+j+" where "+strings.Join(jc, " and ")+")")
	case rel.toOne:
		for i, c := range rel.fk.FromCols {
			conds = append(conds, t+"."+qi(rel.fk.ToCols[i])+" = "+p+"."+qi(c))
		}
	default:
		for i, c := range rel.fk.FromCols {
			conds = append(conds, t+"."+qi(c)+" = "+p+"."+qi(rel.fk.ToCols[i]))
		}
	}
	return strings.Join(conds, " and ")
}

// exists is the test that a join has a row: the child alias is fresh, defined nowhere
// the parent's conditions can see, so it reads the target under the same alias and
// the same condition.
func (w *sqlWriter) exists(j *join) string {
	cond, ok := w.conds[j]
	if !ok {
		cond = w.lazyConds[j]()
		w.conds[j] = cond
	}
	return "exists (select 1 from " + source(j) + " where " + cond + ")"
}

// join writes an embed's output columns in its parent level; on the way it writes the
// join's condition (the relationship, the child's filters and its !inner joins), used
// again by the parent's !inner, presence and related-order tests.
func (w *sqlWriter) join(parent *readNode, j *join) []string {
	n := j.Child
	var list []string
	if !j.Spread {
		// The select list first: it writes the conditions of the child's own joins.
		list = w.selectList(n)
	}
	if w.conds == nil {
		w.conds, w.lazyConds = map[*join]string{}, map[*join]func() string{}
	}
	condition := func() string {
		cond := joinCond(j.Rel, j.Parent, j.Alias)
		if where := w.where(n, true); where != "" {
			cond += " and " + where
		}
		return cond
	}
	if j.Result == "" && !j.Spread {
		// An empty embed "rel()" only filters (with !inner or rel=is.null): no output key.
		w.lazyConds[j] = condition
		return nil
	}
	cond := condition()
	w.conds[j] = cond
	target := source(j)
	if j.Spread && j.Rel.single() {
		return w.spreadOne(parent, j, target, cond)
	}
	if j.Spread {
		var out []string
		for _, it := range n.Items {
			out = append(out, "(select coalesce(json_agg("+w.item(n, j.Alias, it.Expr)+w.orderBy(n)+"), '[]') from "+target+" where "+cond+") as "+qi(it.Alias))
		}
		return out
	}
	inner := "select " + strings.Join(list, ", ") + " from " + target + w.lateralJoins(n) + " where " + cond + w.groupBy(n)
	if j.Rel.single() {
		return []string{"(select row_to_json(" + j.Result + ") from (" + inner + " limit 1) " + j.Result + ") as " + qi(j.Name)}
	}
	inner += w.orderBy(n) + limitOffset(n, 0)
	return []string{"coalesce((select json_agg(" + j.Result + ") from (" + inner + ") " + j.Result + "), '[]') as " + qi(j.Name)}
}

// spreadOne writes a to-one spread: its row is read once, by a LEFT JOIN LATERAL in the
// parent level's FROM, and its columns become the parent's own. So they group like the
// parent's columns, and aggregates over them ("...rel(x:col.sum())") aggregate in the
// parent, as in PostgREST; a missing row gives nulls.
func (w *sqlWriter) spreadOne(parent *readNode, j *join, target, cond string) []string {
	lat := j.Alias + "s"
	var cols, out []string
	for i, it := range j.Child.Items {
		f := it.Expr
		outer := fieldExpr{Agg: f.Agg, Cast: f.Cast}
		if f.Column != "" {
			c := fmt.Sprintf("c%d", i)
			inner := f
			inner.Agg, inner.Cast = "", ""
			e := w.expr(j.Alias, inner)
			if f.Agg == "" && f.Cast != "" {
				e += "::" + castType(f.Cast)
				outer.Cast = ""
			}
			cols = append(cols, e+" as "+qi(c))
			outer.Column = c
		}
		out = append(out, w.item(parent, lat, outer)+" as "+qi(it.Alias))
	}
	if len(cols) == 0 {
		cols = []string{"1"}
	}
	if w.laterals == nil {
		w.laterals = map[*readNode][]string{}
	}
	w.laterals[parent] = append(w.laterals[parent],
		" left join lateral (select "+strings.Join(cols, ", ")+" from "+target+" where "+cond+" limit 1) "+lat+" on true")
	return out
}

// where writes a level's conditions, and with inner the existence tests of its !inner
// joins, joined by "and"; "" when there are none.
func (w *sqlWriter) where(n *readNode, inner bool) string {
	var conds []string
	for _, c := range n.Where {
		conds = append(conds, w.condition(n, c))
	}
	if inner {
		for _, j := range n.Joins {
			if j.Inner && !j.Spread {
				conds = append(conds, w.exists(j))
			}
		}
	}
	return strings.Join(conds, " and ")
}

func (w *sqlWriter) condition(n *readNode, c condition) string {
	switch {
	case c.Presence != nil:
		if c.Not {
			return "not " + w.exists(c.Presence)
		}
		return w.exists(c.Presence)
	case c.Logic != nil:
		l := c.Logic
		if len(l.Conds) == 0 {
			return "true"
		}
		parts := make([]string, len(l.Conds))
		for i, sub := range l.Conds {
			parts[i] = w.condition(n, sub)
		}
		s := "(" + strings.Join(parts, " "+l.Op+" ") + ")"
		if l.Not {
			s = "not " + s
		}
		return s
	}
	return w.filter(n.Alias, c.Filter)
}

func (w *sqlWriter) filter(alias string, fc *filterCond) string {
	f, typ := fc.F, fc.Type
	e := w.expr(alias, fc.Expr)
	val := func(v string) string { return w.arg(v) + "::text::" + typ }
	if f.Arg != "" && f.Op.Kind() != operator.FullText {
		return w.quantified(e, typ, f)
	}
	var c string
	switch f.Op.Kind() {
	case operator.Compare:
		v := f.Value
		// A containment or overlap with an array column takes PostgREST's (a,b) list too.
		if (f.Op == operator.Cs || f.Op == operator.Cd || f.Op == operator.Ov) && strings.HasSuffix(typ, "[]") && strings.HasPrefix(v, "(") {
			v = "{" + strings.Trim(v, "()") + "}"
		}
		c = e + " " + f.Op.SQL() + " " + val(v)
	case operator.Pattern:
		c = e + "::text " + f.Op.SQL() + " " + w.arg(strings.ReplaceAll(f.Value, "*", "%"))
	case operator.Regex:
		c = e + "::text " + f.Op.SQL() + " " + w.arg(f.Value)
	case operator.List:
		c = e + " = any(" + w.arg(fc.List) + "::text[]::" + arrayType(typ) + ")"
	case operator.Truth:
		switch strings.ToLower(f.Value) {
		case "null":
			c = e + " is null"
		case "not_null":
			c = e + " is not null"
		case "true":
			c = e + " is true"
		case "false":
			c = e + " is false"
		default:
			c = e + " is unknown"
		}
	case operator.Distinct:
		c = e + " is distinct from " + val(f.Value)
	case operator.FullText:
		fn := f.Op.TSQuery()
		if f.Arg != "" {
			c = e + " @@ " + fn + "(" + w.arg(f.Arg) + "::regconfig, " + w.arg(f.Value) + ")"
		} else {
			c = e + " @@ " + fn + "(" + w.arg(f.Value) + ")"
		}
	}
	if f.Not {
		c = "not (" + c + ")"
	}
	return c
}

func (w *sqlWriter) quantified(e, typ string, f Filter) string {
	op, q := f.Op.SQL(), strings.ToLower(f.Arg)
	var c string
	switch f.Op.Kind() {
	case operator.Pattern:
		c = e + "::text " + op + " " + q + "(" + w.arg(strings.ReplaceAll(f.Value, "*", "%")) + "::text[])"
	case operator.Regex:
		c = e + "::text " + op + " " + q + "(" + w.arg(f.Value) + "::text[])"
	default:
		c = e + " " + op + " " + q + "(" + w.arg(f.Value) + "::text::" + arrayType(typ) + ")"
	}
	if f.Not {
		c = "not (" + c + ")"
	}
	return c
}

func arrayType(t string) string {
	if i := strings.IndexByte(t, '('); i > 0 && !strings.HasSuffix(t, "[]") {
		t = t[:i] // varchar(10)[] is fine as varchar[]
	}
	return t + "[]"
}

func (w *sqlWriter) orderBy(n *readNode) string {
	if len(n.Order) == 0 {
		return ""
	}
	parts := make([]string, len(n.Order))
	for i, o := range n.Order {
		var e string
		if j := o.Related; j != nil {
			// The embed's alias is not visible at this level's ORDER BY: the sort key
			// reads the one row under the embed's own alias and condition.
			e = "(select " + w.expr(j.Alias, o.Expr) + " from " + source(j) + " where " + w.conds[j] + " limit 1)"
		} else {
			e = w.expr(n.Alias, o.Expr)
		}
		if o.Desc {
			e += " desc"
		}
		if o.NullsFirst != nil {
			if *o.NullsFirst {
				e += " nulls first"
			} else {
				e += " nulls last"
			}
		}
		parts[i] = e
	}
	return " order by " + strings.Join(parts, ", ")
}

func limitOffset(n *readNode, maxRows int) string {
	s := ""
	lim, ok := 0, n.Limit != nil
	if ok {
		lim = *n.Limit
	}
	if maxRows > 0 && (!ok || lim > maxRows) {
		lim, ok = maxRows, true
	}
	if ok {
		s += fmt.Sprintf(" limit %d", lim)
	}
	if n.Offset > 0 {
		s += fmt.Sprintf(" offset %d", n.Offset)
	}
	return s
}

func quoteAll(cols []string) string {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = qi(c)
	}
	return strings.Join(q, ", ")
}

// mutate writes a write statement: the bare statement for return=minimal, else a CTE
// _m whose rows the body shows; an upsert also counts the rows it inserted (xmax is 0
// for a new row), to tell 201 from 200.
func (w *sqlWriter) mutate(p *MutatePlan) string {
	if p.Empty {
		return ""
	}
	rel, src := p.Rel, relName(p.Rel)
	var stmt string
	switch p.Kind {
	case MutateInsert:
		stmt = "insert into " + src
		if p.Upsert {
			stmt += " as _ins" // the RETURNING below tells inserted rows from updated ones
		}
		if len(p.Columns) > 0 {
			sel := make([]string, len(p.Columns))
			for i, c := range p.Columns {
				sel[i] = "_p." + qi(c)
				// missing=default: a key absent from an object takes the column default.
				if d := rel.Column(c).DefaultExpr; p.Req.Prefer.Missing == "default" && d != "" {
					sel[i] = "case when _j::jsonb ? " + w.arg(c) + " then _p." + qi(c) + " else (" + d + ") end"
				}
			}
			stmt += " (" + quoteAll(p.Columns) + ") select " + strings.Join(sel, ", ") + " from json_array_elements(" + w.arg(p.Rows) + "::json) _j, json_populate_record(null::" + src + ", _j) _p"
		} else {
			stmt += " default values"
		}
		if res := p.Req.Prefer.Resolution; res != "" {
			stmt += " on conflict (" + quoteAll(p.OnConflict) + ")"
			if res == "ignore-duplicates" || len(p.Columns) == 0 {
				stmt += " do nothing"
			} else {
				sets := make([]string, len(p.Columns))
				for i, c := range p.Columns {
					sets[i] = qi(c) + " = excluded." + qi(c)
				}
				stmt += " do update set " + strings.Join(sets, ", ")
			}
		}
	case MutateUpdate:
		sel := make([]string, len(p.Columns))
		for i, c := range p.Columns {
			sel[i] = "_p." + qi(c)
		}
		obj := w.arg(p.Row)
		stmt = "update " + src + " _t0 set (" + quoteAll(p.Columns) + ") = (select " + strings.Join(sel, ", ") +
			" from json_populate_record(null::" + src + ", " + obj + "::json) _p)" + w.mutationWhere(p)
	case MutateDelete:
		stmt = "delete from " + src + " _t0" + w.mutationWhere(p)
	case MutatePut:
		sel := make([]string, len(p.Columns))
		for i, c := range p.Columns {
			sel[i] = "_p." + qi(c)
		}
		// The body's key must equal the URL's, compared as the column's type; a payload
		// row that fails this inserts nothing and the request answers PGRST115.
		match := make([]string, len(rel.PK))
		for i, pk := range rel.PK {
			match[i] = "_p." + qi(pk) + " = " + w.arg(p.Key[pk]) + "::text::" + rel.Column(pk).Type
		}
		var sets []string
		for _, c := range p.Columns {
			if !contains(rel.PK, c) {
				sets = append(sets, qi(c)+" = excluded."+qi(c))
			}
		}
		if len(sets) == 0 {
			// A body of key columns only still "replaces" the row (and counts it as affected).
			for _, pk := range rel.PK {
				sets = append(sets, qi(pk)+" = excluded."+qi(pk))
			}
		}
		stmt = "insert into " + src + " as _ins (" + quoteAll(p.Columns) + ") select " + strings.Join(sel, ", ") +
			" from json_populate_record(null::" + src + ", " + w.arg(p.Row) + "::json) _p where " + strings.Join(match, " and ") +
			" on conflict (" + quoteAll(rel.PK) + ") do update set " + strings.Join(sets, ", ")
	}
	body := listBody(p.Req.Media)
	switch {
	case p.Returning == nil && p.Upsert && p.Kind == MutateInsert:
		return "with _m as (" + stmt + " returning _ins.xmax::text::bigint = 0 as _new) select '[]', count(*)::int, count(*) filter (where _new) from _m"
	case p.Returning == nil:
		return stmt
	case p.Upsert:
		return "with _m as (" + stmt + " returning _ins as _row, _ins.xmax::text::bigint = 0 as _new) select " + body + ", count(_r)::int, " +
			"(select count(*) from _m where _new) from (select " + strings.Join(w.selectList(p.Returning), ", ") + " from (select (_m._row).* from _m) _t0" + w.lateralJoins(p.Returning) + ") _r"
	}
	return "with _m as (" + stmt + " returning *) select " + body + ", count(_r)::int, null::bigint from (select " +
		strings.Join(w.selectList(p.Returning), ", ") + " from _m _t0" + w.lateralJoins(p.Returning) + ") _r"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (w *sqlWriter) mutationWhere(p *MutatePlan) string {
	var conds []string
	n := &readNode{Rel: p.Rel, Alias: "_t0"}
	for _, c := range p.Where {
		conds = append(conds, w.condition(n, c))
	}
	if len(conds) == 0 {
		return ""
	}
	return " where " + strings.Join(conds, " and ")
}

// call writes a function call: its rows read like a table's for set- and row-returning
// functions, else its one value.
func (w *sqlWriter) call(p *CallPlan) string {
	f := p.Func
	var call []string
	if p.Body != nil {
		if f.Args[0].Type == "bytea" {
			call = append(call, w.arg([]byte(*p.Body))+"::bytea") // binary: any byte may occur
		} else {
			call = append(call, w.arg(*p.Body)+"::"+f.Args[0].Type)
		}
	}
	for _, a := range p.Args {
		var expr string
		switch a.Kind {
		case argText:
			expr = w.arg(a.Value) + "::text::" + a.Type
		case argNull:
			expr = "null::" + a.Type
		case argJSON:
			expr = w.arg(a.Value) + "::" + a.Type
		case argArray:
			// A JSON array for an array parameter (supabase-js sends text[] as ["a","b"]):
			// PostgREST reads arguments with json_to_record, which makes PostgreSQL arrays
			// of JSON arrays, nested ones included.
			expr = "(select _r._a from jsonb_to_record(jsonb_build_object('_a', " + w.arg(a.Value) + "::jsonb)) as _r(_a " + a.Type + "))"
		default:
			expr = "(" + w.arg(a.Value) + "::jsonb #>> '{}')::" + a.Type
		}
		call = append(call, qi(a.Name)+" => "+expr)
	}
	fn := qi(f.Schema) + "." + qi(f.Name) + "(" + strings.Join(call, ", ") + ")"
	switch {
	case f.Void:
		return "select 'null', (select 1 from (select " + fn + ") _v)::int, null::bigint"
	case p.Result != nil:
		n := p.Result
		list := w.selectList(n)
		where := w.where(n, false)
		if where != "" {
			where = " where " + where
		}
		from := " from " + fn + " _t0"
		count, with := "null::bigint", ""
		if p.Count {
			// count=exact: the function runs once, into a CTE both the rows and the
			// total read (its rows are then of an anonymous record type).
			with = "with _src as materialized (select * from " + fn + ") "
			from = " from _src _t0"
			count = "(select count(*) from _src _t0" + where + ")"
		}
		// A function returning one row (not a set) answers that row as an object.
		object := p.Req.Media.Single || !f.ReturnsSet
		return with + "select " + body(p.Req.Media, object) + ", count(_r)::int, " + count + " from (select " + strings.Join(list, ", ") +
			from + w.lateralJoins(n) + where + w.groupBy(n) + w.orderBy(n) + limitOffset(n, p.MaxRows) + ") _r"
	}
	total := "null::bigint"
	if p.Count {
		total = "1::bigint"
	}
	if p.Req.Media.Strip {
		return "select json_strip_nulls(coalesce(to_json(" + fn + "), 'null'))::text, 1, " + total
	}
	return "select coalesce(to_json(" + fn + "), 'null')::text, 1, " + total
}
