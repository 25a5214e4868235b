package postgrest

import (
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// builder writes one parameterised statement. Identifiers come only from the schema
// cache and are quoted; every value is a bound parameter.
type builder struct {
	s     *Schema
	q     *Query
	args  []any
	alias int
	// innerConds are exists() conditions from !inner embeds, by parent path.
	innerConds []innerCond
	// group holds, per select path, the plain expressions to GROUP BY when that level has
	// aggregates (PostgREST groups by every non-aggregated column selected).
	group map[string]*grouping
	// embedExists holds each embed's exists() condition by parent path and name.
	embedExists map[string]string
	// embeds holds each embed's relationship and join condition by parent path and name,
	// for ordering by a to-one embed's column.
	embeds map[string]embedRef
	// relAliases names the relation behind each embed alias (_tN), for error messages.
	relAliases map[string]string
}

// aliasNames maps the statement's aliases to relation names; root is the request's
// relation (alias _t0).
func (b *builder) aliasNames(root string) *aliasNames {
	return &aliasNames{root: root, names: b.relAliases} // read only when an error is mapped
}

// embedRef is an embed as the parent sees it: the target read through alias under cond.
type embedRef struct {
	rel    *relationship
	parent string // the parent's alias
	alias  string
	cond   string
}

type grouping struct {
	agg   bool
	exprs []string
}

func (b *builder) grouping(path string) *grouping {
	if b.group == nil {
		b.group = map[string]*grouping{}
	}
	g := b.group[path]
	if g == nil {
		g = &grouping{}
		b.group[path] = g
	}
	return g
}

// groupBy is the GROUP BY clause of a path ("" when it has no aggregates).
func (b *builder) groupBy(path string) string {
	g := b.group[path]
	if g == nil || !g.agg || len(g.exprs) == 0 {
		return ""
	}
	return " group by " + strings.Join(g.exprs, ", ")
}

func qi(s string) string { return pgx.Identifier{s}.Sanitize() }

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

func (b *builder) arg(v any) string {
	b.args = append(b.args, v)
	return fmt.Sprintf("$%d", len(b.args))
}

func (b *builder) nextAlias(prefix string) string {
	b.alias++
	return fmt.Sprintf("_%s%d", prefix, b.alias)
}

func relName(r *Relation) string { return qi(r.Schema) + "." + qi(r.Name) }

// source is what an embed reads from: the target relation, or a computed relationship's
// function called on the parent's row (alias p).
func source(rel *relationship, p string) string {
	if rel.computed != nil {
		return qi(rel.computed.Schema) + "." + qi(rel.computed.Name) + "(" + p + ")"
	}
	return relName(rel.target)
}

func unknownColumn(r *Relation, col string) *Error {
	return &Error{Status: 400, Code: "42703", Message: fmt.Sprintf("column %s.%s does not exist", r.Name, col)}
}

// colExpr is alias."col" with JSON steps; it reports whether the result is text.
func (b *builder) colExpr(r *Relation, alias, col string, steps []jsonStep) (string, *Column, error) {
	c := r.Column(col)
	if c == nil {
		return "", nil, unknownColumn(r, col)
	}
	e := alias + "." + qi(col)
	for _, st := range steps {
		e += st.Op + b.arg(st.Key)
	}
	if len(steps) > 0 {
		e = "(" + e + ")"
	}
	return e, c, nil
}

// selectList renders the select items of a relation read through alias.
func (b *builder) selectList(r *Relation, alias string, items []SelectItem, path string) ([]string, error) {
	var out []string
	for _, it := range items {
		switch {
		case it.Star:
			out = append(out, alias+".*")
			// Grouping by the primary key lets every column appear (functional dependency).
			g := b.grouping(path)
			if len(r.PK) == 0 {
				g.exprs = append(g.exprs, alias+".*")
			}
			for _, k := range r.PK {
				g.exprs = append(g.exprs, alias+"."+qi(k))
			}
		case it.Embed != nil:
			cols, err := b.embed(r, alias, it, path)
			if err != nil {
				return nil, err
			}
			out = append(out, cols...)
		default:
			e, name, err := b.item(r, alias, it, path)
			if err != nil {
				return nil, err
			}
			out = append(out, e+" as "+qi(name))
		}
	}
	return out, nil
}

// item is a plain column or an aggregate of a level as an expression and its output name
// (kept apart, so no caller has to find the alias back in SQL text).
func (b *builder) item(r *Relation, alias string, it SelectItem, path string) (string, string, error) {
	if it.Agg != "" {
		e := "count(*)"
		if it.Column != "" {
			ce, _, err := b.colExpr(r, alias, it.Column, it.JSON)
			if err != nil {
				return "", "", err
			}
			e = it.Agg + "(" + ce + ")"
		}
		if it.Cast != "" {
			e = "(" + e + ")::" + castType(it.Cast)
		}
		name := it.Alias
		if name == "" {
			name = it.Agg
		}
		b.grouping(path).agg = true
		return e, name, nil
	}
	e, _, err := b.colExpr(r, alias, it.Column, it.JSON)
	if err != nil {
		return "", "", err
	}
	if it.Cast != "" {
		e += "::" + castType(it.Cast)
	}
	name := it.Alias
	if name == "" {
		name = it.Column
	}
	b.grouping(path).exprs = append(b.grouping(path).exprs, e)
	return e, name, nil
}

// relationship between parent and a target named by an embed.
type relationship struct {
	target   *Relation
	toOne    bool
	fk       *FK // direct FK (parent→target for to-one, target→parent for to-many)
	junction *Relation
	jParent  *FK // junction → parent
	jTarget  *FK // junction → target
	// oneToOne: the target's FK to the parent is also its primary key, so at most one
	// target row matches; embedded as an object although joined like a to-many.
	oneToOne bool
	// computed: a computed relationship, read from its function called on the parent row.
	computed *ComputedRel
}

// single reports whether the embed yields at most one row (an object, not an array).
func (r *relationship) single() bool { return r.toOne || r.oneToOne }

// sameCols reports whether a and b name the same columns, in any order.
func sameCols(a, b []string) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for _, x := range a {
		found := false
		for _, y := range b {
			found = found || x == y
		}
		if !found {
			return false
		}
	}
	return true
}

func (b *builder) findRelationship(parent *Relation, e *Embed) (*relationship, error) {
	return resolveEmbed(b.s, parent, e)
}

// joinCond is the condition tying the target (alias t) to the parent (alias p).
func joinCond(rel *relationship, p, t string) (string, string) {
	var conds []string
	from := ""
	switch {
	case rel.computed != nil:
		conds = append(conds, "true") // the function is called on the parent row
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
	return strings.Join(conds, " and "), from
}

func (b *builder) embed(parent *Relation, palias string, it SelectItem, path string) ([]string, error) {
	e := it.Embed
	rel, err := b.findRelationship(parent, e)
	if err != nil {
		return nil, err
	}
	name := it.Alias
	if name == "" {
		name = e.Relation
	}
	sub := name
	if path != "" {
		sub = path + "." + name
	}
	t := b.nextAlias("t")
	if b.relAliases == nil {
		b.relAliases = map[string]string{}
	}
	b.relAliases[t] = rel.target.Name
	cond, _ := joinCond(rel, palias, t)
	var list []string
	if !it.Spread {
		// The select list first: nested !inner embeds add conditions for this level.
		if list, err = b.selectList(rel.target, t, e.Select, sub); err != nil {
			return nil, err
		}
	}
	where, err := b.where(rel.target, t, sub)
	if err != nil {
		return nil, err
	}
	if where != "" {
		cond += " and " + where
	}
	for _, ic := range b.innerConds {
		if ic.path == sub {
			cond += " and " + ic.sql
		}
	}
	if it.Spread {
		b.addEmbedRef(path, name, embedRef{rel: rel, parent: palias, alias: t, cond: cond})
		if !rel.single() {
			return nil, &Error{Status: 400, Code: "PGRST119", Message: "A spread operation on '" + e.Relation + "' is not possible", Details: "'" + parent.Name + "' and '" + e.Relation + "' do not form a many-to-one or one-to-one relationship"}
		}
		var out []string
		for _, si := range e.Select {
			if si.Embed != nil || si.Star {
				return nil, apiErr(400, "PGRST100", "spread embeds support plain columns only", "")
			}
			expr, as, err := b.item(rel.target, t, si, sub)
			if err != nil {
				return nil, err
			}
			out = append(out, "(select "+expr+" from "+source(rel, palias)+" "+t+" where "+cond+" limit 1) as "+qi(as))
		}
		return out, nil
	}
	inner := "select " + strings.Join(list, ", ") + " from " + source(rel, palias) + " " + t + " where " + cond + b.groupBy(sub)
	// The alias t is fresh, defined nowhere the parent's conditions can see, so the
	// existence test reads the target under the same alias and the same condition.
	exists := "exists (select 1 from " + source(rel, palias) + " " + t + " where " + cond + ")"
	if e.Inner {
		b.innerConds = append(b.innerConds, innerCond{path: path, sql: exists})
	}
	// "<embed>=is.null" / "not.is.null" on the parent filters by the embed's presence.
	if b.embedExists == nil {
		b.embedExists = map[string]string{}
	}
	b.embedExists[path+"\x00"+name] = exists
	b.addEmbedRef(path, name, embedRef{rel: rel, parent: palias, alias: t, cond: cond})
	if len(e.Select) == 0 {
		// An empty embed "rel()" only filters (with !inner or rel=is.null): no output key.
		return nil, nil
	}
	r := b.nextAlias("e")
	if rel.single() {
		return []string{"(select row_to_json(" + r + ") from (" + inner + " limit 1) " + r + ") as " + qi(name)}, nil
	}
	order, err := b.orderBy(rel.target, t, sub)
	if err != nil {
		return nil, err
	}
	inner += order + b.limitOffset(sub, 0)
	return []string{"coalesce((select json_agg(" + r + ") from (" + inner + ") " + r + "), '[]') as " + qi(name)}, nil
}

type innerCond struct{ path, sql string }

func (b *builder) addEmbedRef(path, name string, ref embedRef) {
	if b.embeds == nil {
		b.embeds = map[string]embedRef{}
	}
	b.embeds[path+"\x00"+name] = ref
}

// embedPresence is the exists() condition for "<embed>=is.null|not.is.null"; ok is false
// when f does not name an embed of this level (then it is a column filter).
func (b *builder) embedPresence(r *Relation, path string, f Filter) (string, bool, error) {
	ex, ok := b.embedExists[path+"\x00"+f.Column]
	if !ok || r.Column(f.Column) != nil || len(f.JSON) > 0 {
		return "", false, nil
	}
	if f.Op != "is" {
		return "", true, apiErr(400, "PGRST100", "an embedded resource can only be filtered with is.null or not.is.null", "")
	}
	not := f.Not
	switch strings.ToLower(f.Value) {
	case "null":
		not = !not
	case "not_null":
	default:
		return "", true, apiErr(400, "PGRST100", "an embedded resource can only be filtered with is.null or not.is.null", "")
	}
	if not {
		ex = "not " + ex
	}
	return ex, true, nil
}

// where renders the filters and logic trees of a path against alias.
func (b *builder) where(r *Relation, alias, path string) (string, error) {
	var conds []string
	for _, f := range b.q.Filters[path] {
		c, err := b.condition(r, alias, path, f)
		if err != nil {
			return "", err
		}
		conds = append(conds, c)
	}
	for _, l := range b.q.Logic[path] {
		c, err := b.logic(r, alias, path, l)
		if err != nil {
			return "", err
		}
		conds = append(conds, c)
	}
	return strings.Join(conds, " and "), nil
}

// condition is one filter of a level: a column condition, or an embed's presence.
func (b *builder) condition(r *Relation, alias, path string, f Filter) (string, error) {
	if ex, ok, err := b.embedPresence(r, path, f); ok || err != nil {
		return ex, err
	}
	return b.filter(r, alias, f)
}

func (b *builder) logic(r *Relation, alias, path string, l *Logic) (string, error) {
	var parts []string
	for _, f := range l.Filters {
		c, err := b.condition(r, alias, path, f)
		if err != nil {
			return "", err
		}
		parts = append(parts, c)
	}
	for _, ch := range l.Children {
		c, err := b.logic(r, alias, path, ch)
		if err != nil {
			return "", err
		}
		parts = append(parts, c)
	}
	if len(parts) == 0 {
		return "true", nil
	}
	s := "(" + strings.Join(parts, " "+l.Op+" ") + ")"
	if l.Not {
		s = "not " + s
	}
	return s, nil
}

var cmpOps = map[string]string{"eq": "=", "neq": "<>", "gt": ">", "gte": ">=", "lt": "<", "lte": "<=",
	"cs": "@>", "cd": "<@", "ov": "&&", "sl": "<<", "sr": ">>", "nxr": "&<", "nxl": "&>", "adj": "-|-"}

var ftsFuncs = map[string]string{"fts": "to_tsquery", "plfts": "plainto_tsquery", "phfts": "phraseto_tsquery", "wfts": "websearch_to_tsquery"}

func (b *builder) filter(r *Relation, alias string, f Filter) (string, error) {
	e, col, err := b.colExpr(r, alias, f.Column, f.JSON)
	if err != nil {
		return "", err
	}
	typ := col.Type
	if len(f.JSON) > 0 {
		typ = "jsonb"
		if f.JSON[len(f.JSON)-1].Op == "->>" {
			typ = "text"
		}
	}
	val := func(v string) string { return b.arg(v) + "::text::" + typ }
	if f.Arg != "" && ftsFuncs[f.Op] == "" {
		return b.quantified(e, typ, f)
	}
	var c string
	switch f.Op {
	case "eq", "neq", "gt", "gte", "lt", "lte", "cs", "cd", "sl", "sr", "nxl", "nxr", "adj":
		v := f.Value
		if (f.Op == "cs" || f.Op == "cd") && strings.HasSuffix(typ, "[]") && strings.HasPrefix(v, "(") {
			v = "{" + strings.Trim(v, "()") + "}"
		}
		c = e + " " + cmpOps[f.Op] + " " + val(v)
	case "ov":
		v := f.Value
		if strings.HasPrefix(v, "(") && strings.HasSuffix(typ, "[]") {
			v = "{" + strings.Trim(v, "()") + "}"
		}
		c = e + " && " + val(v)
	case "like", "ilike":
		op := " like "
		if f.Op == "ilike" {
			op = " ilike "
		}
		c = e + "::text" + op + b.arg(strings.ReplaceAll(f.Value, "*", "%"))
	case "match":
		c = e + "::text ~ " + b.arg(f.Value)
	case "imatch":
		c = e + "::text ~* " + b.arg(f.Value)
	case "in":
		list, err := parseList(f.Value)
		if err != nil {
			return "", err
		}
		c = e + " = any(" + b.arg(list) + "::text[]::" + arrayType(typ) + ")"
	case "is":
		switch strings.ToLower(f.Value) {
		case "null":
			c = e + " is null"
		case "not_null":
			c = e + " is not null"
		case "true":
			c = e + " is true"
		case "false":
			c = e + " is false"
		case "unknown":
			c = e + " is unknown"
		default:
			return "", apiErr(400, "PGRST100", fmt.Sprintf("failed to parse filter (is.%s)", f.Value), "is accepts null, not_null, true, false or unknown")
		}
	case "isdistinct":
		c = e + " is distinct from " + val(f.Value)
	case "fts", "plfts", "phfts", "wfts":
		fn := ftsFuncs[f.Op]
		if f.Arg != "" {
			c = e + " @@ " + fn + "(" + b.arg(f.Arg) + "::regconfig, " + b.arg(f.Value) + ")"
		} else {
			c = e + " @@ " + fn + "(" + b.arg(f.Value) + ")"
		}
	default:
		return "", apiErr(400, "PGRST100", "unknown operator "+f.Op, "")
	}
	if f.Not {
		c = "not (" + c + ")"
	}
	return c, nil
}

// quantifiedOps are the operators that take PostgREST's (any) and (all) modifiers, with
// the value a list in braces: like(any).{a*,b*} is col like any('{a%,b%}').
var quantifiedOps = map[string]string{"eq": "=", "neq": "<>", "gt": ">", "gte": ">=", "lt": "<", "lte": "<=",
	"like": "like", "ilike": "ilike", "match": "~", "imatch": "~*"}

func (b *builder) quantified(e, typ string, f Filter) (string, error) {
	op, ok := quantifiedOps[f.Op]
	q := strings.ToLower(f.Arg)
	if !ok || (q != "any" && q != "all") {
		return "", apiErr(400, "PGRST100", fmt.Sprintf("failed to parse filter (%s(%s).%s)", f.Op, f.Arg, f.Value), "unexpected modifier "+f.Arg)
	}
	v := f.Value
	if !strings.HasPrefix(v, "{") || !strings.HasSuffix(v, "}") {
		return "", apiErr(400, "PGRST100", fmt.Sprintf("failed to parse filter (%s(%s).%s)", f.Op, f.Arg, f.Value), "expecting \"{\"")
	}
	var c string
	switch f.Op {
	case "like", "ilike":
		c = e + "::text " + op + " " + q + "(" + b.arg(strings.ReplaceAll(v, "*", "%")) + "::text[])"
	case "match", "imatch":
		c = e + "::text " + op + " " + q + "(" + b.arg(v) + "::text[])"
	default:
		c = e + " " + op + " " + q + "(" + b.arg(v) + "::text::" + arrayType(typ) + ")"
	}
	if f.Not {
		c = "not (" + c + ")"
	}
	return c, nil
}

func arrayType(t string) string {
	if i := strings.IndexByte(t, '('); i > 0 && !strings.HasSuffix(t, "[]") {
		t = t[:i] // varchar(10)[] is fine as varchar[]
	}
	return t + "[]"
}

// parseList reads "(a,b,"c,d")".
func parseList(v string) ([]string, error) {
	if !strings.HasPrefix(v, "(") || !strings.HasSuffix(v, ")") {
		return nil, apiErr(400, "PGRST100", fmt.Sprintf("failed to parse filter (in.%s)", v), "expecting \"(\"")
	}
	inner := v[1 : len(v)-1]
	if inner == "" {
		return []string{}, nil
	}
	var out []string
	for _, p := range splitTop(inner, ',') {
		p = strings.TrimSpace(p)
		if len(p) >= 2 && p[0] == '"' && p[len(p)-1] == '"' {
			p = strings.ReplaceAll(p[1:len(p)-1], `\"`, `"`)
		}
		out = append(out, p)
	}
	return out, nil
}

func (b *builder) orderBy(r *Relation, alias, path string) (string, error) {
	terms := b.q.Order[path]
	if len(terms) == 0 {
		return "", nil
	}
	var parts []string
	for _, t := range terms {
		var e string
		var err error
		if t.Relation != "" {
			e, err = b.relatedOrder(r, path, t)
		} else {
			e, _, err = b.colExpr(r, alias, t.Column, t.JSON)
		}
		if err != nil {
			return "", err
		}
		if t.Desc {
			e += " desc"
		}
		if t.NullsFirst != nil {
			if *t.NullsFirst {
				e += " nulls first"
			} else {
				e += " nulls last"
			}
		}
		parts = append(parts, e)
	}
	return " order by " + strings.Join(parts, ", "), nil
}

// relatedOrder is the sort key for order=embed(col): the column of the one row a to-one
// embed of this level points to, read under the embed's own join condition and filters.
func (b *builder) relatedOrder(r *Relation, path string, t OrderTerm) (string, error) {
	ref, ok := b.embeds[path+"\x00"+t.Relation]
	if !ok {
		return "", &Error{Status: 400, Code: "PGRST108", Message: fmt.Sprintf("'%s' is not an embedded resource in this request", t.Relation),
			Hint: fmt.Sprintf("Verify that '%s' is included in the 'select' query parameter.", t.Relation)}
	}
	if !ref.rel.single() {
		return "", &Error{Status: 400, Code: "PGRST118", Message: fmt.Sprintf("A related order on '%s' is not possible", t.Relation),
			Details: fmt.Sprintf("'%s' and '%s' do not form a many-to-one or one-to-one relationship", r.Name, ref.rel.target.Name)}
	}
	// The embed's alias is not visible at this level's ORDER BY: reuse it and its condition.
	col, _, err := b.colExpr(ref.rel.target, ref.alias, t.Column, t.JSON)
	if err != nil {
		return "", err
	}
	return "(select " + col + " from " + source(ref.rel, ref.parent) + " " + ref.alias + " where " + ref.cond + " limit 1)", nil
}

func (b *builder) limitOffset(path string, maxRows int) string {
	s := ""
	lim, ok := b.q.Limit[path]
	if maxRows > 0 && (!ok || lim > maxRows) {
		lim, ok = maxRows, true
	}
	if ok {
		s += fmt.Sprintf(" limit %d", lim)
	}
	if off, ok := b.q.Offset[path]; ok && off > 0 {
		s += fmt.Sprintf(" offset %d", off)
	}
	return s
}

// rootWhere adds !inner conditions of top-level embeds to the root filters.
func (b *builder) rootWhere(r *Relation, alias string) (string, error) {
	w, err := b.where(r, alias, "")
	if err != nil {
		return "", err
	}
	var conds []string
	if w != "" {
		conds = append(conds, w)
	}
	for _, ic := range b.innerConds {
		if ic.path == "" {
			conds = append(conds, ic.sql)
		}
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " where " + strings.Join(conds, " and "), nil
}
