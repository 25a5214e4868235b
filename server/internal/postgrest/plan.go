package postgrest

// Stage 2 of the pipeline: Plan resolves an ApiRequest against the schema cache into an
// ActionPlan — a ReadPlan, MutatePlan or CallPlan — in which every column, relationship
// and join is data: nothing here writes SQL. Every error a request can cause before it
// reaches the database is found here, so Statement (sql.go) cannot fail.

import (
	"bytes"
	"casus/server/internal/postgrest/operator"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
)

// PlanConfig is the configuration planning needs.
type PlanConfig struct {
	MaxRows int // DB_MAX_ROWS; 0 = unlimited
	// Aggregates: DB_AGGREGATES_ENABLED (PostgREST's db-aggregates-enabled).
	Aggregates bool
	// Explain: DB_PLAN_ENABLED (db-plan-enabled), the plan media type is served.
	Explain bool
}

// ActionPlan is one of *ReadPlan, *MutatePlan, *CallPlan.
type ActionPlan interface {
	// Request is the request the plan was made from.
	Request() *ApiRequest
	// aliases names the relations behind the statement's aliases, for error messages.
	aliases() *aliasNames
}

// ReadPlan reads a table or view (GET, HEAD).
type ReadPlan struct {
	Req     *ApiRequest
	Root    *readNode
	MaxRows int
	// Count is how the total is counted: "" (not), exact, or planned / estimated (the
	// executor may still count exactly; see countStatements).
	Count string
}

// MutateKind tells the write statements apart.
type MutateKind int

const (
	MutateInsert MutateKind = iota
	MutateUpdate
	MutatePut
	MutateDelete
)

// MutatePlan writes a table (POST, PATCH, PUT, DELETE).
type MutatePlan struct {
	Req  *ApiRequest
	Kind MutateKind
	Rel  *Relation
	// Columns set from the payload (trimmed, checked against the relation).
	Columns []string
	// Rows is the payload as a JSON array of objects; Row is its first object (PATCH, PUT).
	Rows string
	Row  string
	// Empty: nothing to write (an empty array to insert, an empty object to update):
	// no statement runs and the answer has no rows.
	Empty bool
	// Upsert: insert ... on conflict do update (resolution=merge-duplicates, and PUT).
	Upsert bool
	// OnConflict is the conflict target of an insert with a resolution preference.
	OnConflict []string
	// Where filters the rows of an update or delete.
	Where []condition
	// Key holds PUT's primary key values from the URL, by column.
	Key map[string]string
	// Returning is what a body shows of the written rows (return=representation).
	Returning *readNode
}

// CallPlan calls a function (/rpc/name).
type CallPlan struct {
	Req  *ApiRequest
	Func *Func
	// Args are the named arguments, in the function's order; Body is the whole payload
	// for a function taking one unnamed json, jsonb, text, xml or bytea parameter.
	Args []callArg
	Body *string
	// Count: count=exact, the total of the function's rows goes in Content-Range.
	Count bool
	// ReadOnly: the call runs in a read-only transaction (GET, or a stable function).
	ReadOnly bool
	// Result reads the function's rows (set- or row-returning functions), else nil.
	Result  *readNode
	MaxRows int
}

func (p *ReadPlan) Request() *ApiRequest   { return p.Req }
func (p *MutatePlan) Request() *ApiRequest { return p.Req }
func (p *CallPlan) Request() *ApiRequest   { return p.Req }

// callArg is one named argument and how its JSON value becomes the parameter's type.
type callArg struct {
	Name, Type string
	Kind       argKind
	Value      string
}

type argKind int

const (
	argText  argKind = iota // a JSON string, cast from text
	argNull                 // JSON null
	argJSON                 // json / jsonb parameter: the JSON text
	argArray                // a JSON array for an array parameter
	argValue                // any other JSON value, read as text
)

// readNode is one level of a read: a relation read under an alias, its select items,
// joins, conditions, order and range.
type readNode struct {
	Rel   *Relation
	Alias string
	Path  string // the embed path ("" = root), as in the query string
	Items []selectItem
	// Joins are the embedded resources of this level, in select order.
	Joins  []*join
	Where  []condition
	Order  []orderItem
	Limit  *int
	Offset int
}

// selectItem is one output column: {expr, alias}, a star, or a join.
type selectItem struct {
	Star  bool
	Expr  fieldExpr
	Alias string
	Join  *join
}

// fieldExpr is a column (with JSON steps and a cast) or an aggregate over one.
type fieldExpr struct {
	Column string // "" only for count()
	JSON   []jsonStep
	Cast   string
	Agg    string
	// Computed is set when Column names a computed field, not a column.
	Computed *ComputedField
}

// join embeds a related relation: the relationship, the parent's alias and a fresh
// alias for the child.
type join struct {
	Rel    *relationship
	Parent string
	Alias  string
	// Result is the alias of the subquery building the embed's JSON ("" when the embed
	// has no output: spreads and empty embeds).
	Result string
	Name   string // output key (the alias or the relation's name)
	Inner  bool
	Spread bool
	Child  *readNode
}

// condition is a filter, a logic tree, or an embed's presence test.
type condition struct {
	Filter   *filterCond
	Logic    *logicCond
	Presence *join // "<embed>=is.null|not.is.null"
	Not      bool  // for Presence: not exists
}

type filterCond struct {
	Expr fieldExpr
	Type string // the operand's type: the column's, or jsonb/text after JSON steps
	F    Filter
	List []string // the values of in.(…)
}

type logicCond struct {
	Op    string
	Not   bool
	Conds []condition
}

type orderItem struct {
	Related    *join // order=embed(col): the to-one embed whose column sorts
	Expr       fieldExpr
	Desc       bool
	NullsFirst *bool
}

// Plan resolves req against the schema cache.
func Plan(req ApiRequest, sc *Schema, cfg PlanConfig) (ActionPlan, error) {
	if pm := req.Media.Plan; pm != nil && !cfg.Explain {
		return nil, errNotAcceptable(pm.accept)
	}
	if req.Media.GeoJSON {
		// Served only where PostGIS provides ST_AsGeoJSON(record).
		if sc.GeoJSONFunc == "" {
			return nil, errNotAcceptable("application/geo+json")
		}
		req.Media.GeoFunc = sc.GeoJSONFunc
	}
	if req.Target.Kind == TargetCall {
		return planCall(&req, sc, cfg)
	}
	rel := sc.Relations[req.Target.Schema+"."+req.Target.Name]
	if rel == nil {
		return nil, errNoTable(req.Target.Schema, req.Target.Name)
	}
	switch req.Method {
	case http.MethodGet, http.MethodHead:
		return planRead(&req, sc, rel, cfg)
	case http.MethodPost:
		return planInsert(&req, sc, rel, cfg)
	case http.MethodPatch:
		return planUpdate(&req, sc, rel, cfg)
	case http.MethodPut:
		return planPut(&req, sc, rel, cfg)
	case http.MethodDelete:
		return planDelete(&req, sc, rel, cfg)
	}
	return nil, errUnsupportedMethod(req.Method)
}

// planner resolves one request's select tree; aliases are numbered in the order the
// statement uses them.
type planner struct {
	s     *Schema
	q     *Query
	alias int
	// aggs: aggregates are allowed (PlanConfig.Aggregates).
	aggs bool
}

func (pl *planner) nextAlias(prefix string) string {
	pl.alias++
	return fmt.Sprintf("_%s%d", prefix, pl.alias)
}

func planRead(req *ApiRequest, sc *Schema, rel *Relation, cfg PlanConfig) (*ReadPlan, error) {
	pl := &planner{s: sc, q: req.Query, aggs: cfg.Aggregates}
	root, err := pl.node(rel, "_t0", req.Query.Select, "", true)
	if err != nil {
		return nil, err
	}
	count := req.Prefer.Count
	return &ReadPlan{Req: req, Root: root, MaxRows: cfg.MaxRows, Count: count}, nil
}

// node resolves a level: its select items (joins first resolved recursively), then its
// conditions and order, which may name this level's joins. withRange: the level takes
// limit/offset (every level but a spread's and a mutation's root).
func (pl *planner) node(r *Relation, alias string, items []SelectItem, path string, withRange bool) (*readNode, error) {
	n := &readNode{Rel: r, Alias: alias, Path: path}
	if err := pl.selectItems(n, items); err != nil {
		return nil, err
	}
	var err error
	if n.Where, err = pl.conditions(n); err != nil {
		return nil, err
	}
	if n.Order, err = pl.order(n); err != nil {
		return nil, err
	}
	if withRange {
		if lim, ok := pl.q.Limit[path]; ok {
			n.Limit = &lim
		}
		n.Offset = pl.q.Offset[path]
	}
	return n, nil
}

func unknownColumn(r *Relation, col string) *Error { return errUndefinedColumn(r.Name, col) }

// field checks a column expression against r: a column, or a computed field (a
// function taking r's row type, read like a column).
func field(r *Relation, col string, steps []jsonStep) (fieldExpr, *Column, error) {
	c := r.Column(col)
	if c == nil {
		if cf := r.Computed[col]; cf != nil {
			return fieldExpr{Column: col, JSON: steps, Computed: cf}, &Column{Name: col, Type: cf.Type, Nullable: true}, nil
		}
		return fieldExpr{}, nil, unknownColumn(r, col)
	}
	return fieldExpr{Column: col, JSON: steps}, c, nil
}

func (pl *planner) selectItems(n *readNode, items []SelectItem) error {
	for _, it := range items {
		switch {
		case it.Star:
			n.Items = append(n.Items, selectItem{Star: true})
		case it.Embed != nil:
			j, err := pl.join(n, it)
			if err != nil {
				return err
			}
			n.Joins = append(n.Joins, j)
			n.Items = append(n.Items, selectItem{Join: j})
		default:
			si, err := pl.item(n.Rel, it)
			if err != nil {
				return err
			}
			n.Items = append(n.Items, si)
		}
	}
	return nil
}

// item is a plain column or an aggregate with its output name.
func (pl *planner) item(r *Relation, it SelectItem) (selectItem, error) {
	if it.Agg != "" && !pl.aggs {
		return selectItem{}, errAggregatesNotAllowed()
	}
	e := fieldExpr{Cast: it.Cast, Agg: it.Agg}
	if it.Agg == "" && it.Column == "count" && len(it.JSON) == 0 && r.Column("count") == nil && r.Computed["count"] == nil {
		// "count" naming no column is PostgreSQL's rel.count, count(rel): PostgREST's
		// embedded count (rel(count)), allowed whether or not aggregates are.
		e.Agg = "count"
		name := it.Alias
		if name == "" {
			name = "count"
		}
		return selectItem{Expr: e, Alias: name}, nil
	}
	if it.Column != "" || it.Agg == "" {
		f, _, err := field(r, it.Column, it.JSON)
		if err != nil {
			return selectItem{}, err
		}
		e.Column, e.JSON, e.Computed = f.Column, f.JSON, f.Computed
	}
	name := it.Alias
	if name == "" {
		name = it.Column
		if it.Agg != "" {
			name = it.Agg
		}
	}
	return selectItem{Expr: e, Alias: name}, nil
}

func (pl *planner) join(parent *readNode, it SelectItem) (*join, error) {
	e := it.Embed
	rel, err := findRelationship(pl.s, parent.Rel, e)
	if err != nil {
		return nil, err
	}
	name := it.Alias
	if name == "" {
		name = e.Relation
	}
	sub := name
	if parent.Path != "" {
		sub = parent.Path + "." + name
	}
	j := &join{Rel: rel, Parent: parent.Alias, Alias: pl.nextAlias("t"), Name: name, Inner: e.Inner, Spread: it.Spread}
	if it.Spread {
		child := &readNode{Rel: rel.target, Alias: j.Alias, Path: sub}
		if child.Where, err = pl.conditions(child); err != nil {
			return nil, err
		}
		if !rel.single() {
			// A to-many spread (PostgREST v13): each column becomes the array of its
			// values, in the embed's order.
			if child.Order, err = pl.order(child); err != nil {
				return nil, err
			}
		}
		for _, si := range e.Select {
			if si.Star {
				// "...rel(*)": every column of the spread relation, in table order.
				for _, c := range rel.target.Columns {
					child.Items = append(child.Items, selectItem{Expr: fieldExpr{Column: c.Name}, Alias: c.Name})
				}
				continue
			}
			if si.Embed != nil {
				return nil, errSpreadPlainColumns()
			}
			item, err := pl.item(rel.target, si)
			if err != nil {
				return nil, err
			}
			child.Items = append(child.Items, item)
		}
		j.Child = child
		return j, nil
	}
	child, err := pl.node(rel.target, j.Alias, e.Select, sub, true)
	if err != nil {
		return nil, err
	}
	j.Child = child
	if len(e.Select) > 0 {
		j.Result = pl.nextAlias("e")
	}
	return j, nil
}

// joinNamed is the join of n called name (its alias or relation), or nil.
func (n *readNode) joinNamed(name string, spreads bool) *join {
	for _, j := range n.Joins {
		if j.Name == name && (spreads || !j.Spread) {
			return j
		}
	}
	return nil
}

// conditions resolves the filters and logic trees of n's path.
func (pl *planner) conditions(n *readNode) ([]condition, error) {
	var out []condition
	for _, f := range pl.q.Filters[n.Path] {
		c, err := pl.condition(n, f)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	for _, l := range pl.q.Logic[n.Path] {
		c, err := pl.logic(n, l)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func (pl *planner) logic(n *readNode, l *Logic) (condition, error) {
	lc := &logicCond{Op: l.Op, Not: l.Not}
	for _, f := range l.Filters {
		c, err := pl.condition(n, f)
		if err != nil {
			return condition{}, err
		}
		lc.Conds = append(lc.Conds, c)
	}
	for _, ch := range l.Children {
		c, err := pl.logic(n, ch)
		if err != nil {
			return condition{}, err
		}
		lc.Conds = append(lc.Conds, c)
	}
	return condition{Logic: lc}, nil
}

// condition is one filter of a level: an embed's presence, or a column condition.
func (pl *planner) condition(n *readNode, f Filter) (condition, error) {
	if j := n.joinNamed(f.Column, false); j != nil && n.Rel.Column(f.Column) == nil && len(f.JSON) == 0 {
		if f.Op != operator.Is {
			return condition{}, errEmbedFilter(f.Column)
		}
		not := f.Not
		switch strings.ToLower(f.Value) {
		case "null":
			not = !not
		case "not_null":
		default:
			return condition{}, errEmbedFilter(f.Column)
		}
		return condition{Presence: j, Not: not}, nil
	}
	fc, err := filterOn(n.Rel, f)
	if err != nil {
		return condition{}, err
	}
	return condition{Filter: fc}, nil
}

// filterOn checks a column filter against r: the column, the operator and its value.
func filterOn(r *Relation, f Filter) (*filterCond, error) {
	e, col, err := field(r, f.Column, f.JSON)
	if err != nil {
		return nil, err
	}
	typ := col.Type
	if len(f.JSON) > 0 {
		typ = "jsonb"
		if f.JSON[len(f.JSON)-1].Op == "->>" {
			typ = "text"
		}
	}
	fc := &filterCond{Expr: e, Type: typ, F: f}
	if f.Arg != "" && f.Op.Kind() != operator.FullText {
		q := strings.ToLower(f.Arg)
		if !f.Op.Quantified() || (q != "any" && q != "all") {
			return nil, errFilterParse(fmt.Sprintf("%s(%s).%s", f.Op, f.Arg, f.Value), "unexpected modifier "+f.Arg)
		}
		if !strings.HasPrefix(f.Value, "{") || !strings.HasSuffix(f.Value, "}") {
			return nil, errFilterParse(fmt.Sprintf("%s(%s).%s", f.Op, f.Arg, f.Value), "expecting \"{\"")
		}
		return fc, nil
	}
	switch f.Op.Kind() {
	case operator.List:
		if fc.List, err = parseList(f.Value); err != nil {
			return nil, err
		}
	case operator.Truth:
		switch strings.ToLower(f.Value) {
		case "null", "not_null", "true", "false", "unknown":
		default:
			return nil, errFilterParse("is."+f.Value, "is accepts null, not_null, true, false or unknown")
		}
	case 0:
		return nil, errUnknownOperator(f.Op.String())
	}
	return fc, nil
}

// parseList reads "(a,b,"c,d")".
func parseList(v string) ([]string, error) {
	if !strings.HasPrefix(v, "(") || !strings.HasSuffix(v, ")") {
		return nil, errFilterParse("in."+v, "expecting \"(\"")
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

func (pl *planner) order(n *readNode) ([]orderItem, error) {
	var out []orderItem
	for _, t := range pl.q.Order[n.Path] {
		oi := orderItem{Desc: t.Desc, NullsFirst: t.NullsFirst}
		if t.Relation != "" {
			j := n.joinNamed(t.Relation, true)
			if j == nil {
				return nil, errNotEmbedded(t.Relation)
			}
			if !j.Rel.single() {
				return nil, errRelatedOrderNotToOne(t.Relation, n.Rel.Name, j.Rel.target.Name)
			}
			e, _, err := field(j.Rel.target, t.Column, t.JSON)
			if err != nil {
				return nil, err
			}
			oi.Related, oi.Expr = j, e
		} else {
			e, _, err := field(n.Rel, t.Column, t.JSON)
			if err != nil {
				return nil, err
			}
			oi.Expr = e
		}
		out = append(out, oi)
	}
	return out, nil
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
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// findRelationship is the relationship an embed names (relationships.go).
func findRelationship(s *Schema, parent *Relation, e *Embed) (*relationship, error) {
	return resolveEmbed(s, parent, e)
}

// payload reads a JSON object or array body and the columns it sets (columns= when
// given, else the keys of the objects), all checked against the cache; the rows come
// back as one JSON array.
func payload(req *ApiRequest, rel *Relation) (string, []string, error) {
	trimmed := bytes.TrimSpace(req.Payload)
	if len(trimmed) == 0 {
		trimmed = []byte("{}")
	}
	var rows []map[string]json.RawMessage
	if trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &rows); err != nil {
			return "", nil, errInvalidJSON()
		}
	} else {
		var one map[string]json.RawMessage
		if err := json.Unmarshal(trimmed, &one); err != nil {
			return "", nil, errInvalidJSON()
		}
		rows = []map[string]json.RawMessage{one}
	}
	cols := req.Query.Columns
	if len(cols) == 0 && len(rows) > 0 {
		// With missing=default objects may differ: every key any object names is a column.
		union := req.Prefer.Missing == "default"
		seen := map[string]bool{}
		for _, r := range rows {
			if !union && len(r) != len(rows[0]) {
				return "", nil, errKeysMismatch()
			}
			for k := range r {
				if !seen[k] {
					seen[k] = true
					cols = append(cols, k)
				}
			}
			if !union && len(seen) != len(rows[0]) {
				return "", nil, errKeysMismatch()
			}
		}
		sort.Strings(cols)
	}
	trimmedCols := make([]string, len(cols))
	for i, c := range cols {
		trimmedCols[i] = strings.TrimSpace(c)
		if rel.Column(trimmedCols[i]) == nil {
			return "", nil, errNoPayloadColumn(c, rel.Name)
		}
	}
	arr, _ := json.Marshal(rows)
	return string(arr), trimmedCols, nil
}

// returning resolves what a write's body shows (return=representation) of its rows.
func returning(req *ApiRequest, sc *Schema, rel *Relation, cfg PlanConfig) (*readNode, error) {
	if req.Prefer.Minimal() {
		return nil, nil
	}
	pl := &planner{s: sc, q: req.Query, aggs: cfg.Aggregates}
	// The written rows are read as they are: the root takes no filters, order or range.
	n := &readNode{Rel: rel, Alias: "_t0"}
	if err := pl.selectItems(n, req.Query.Select); err != nil {
		return nil, err
	}
	return n, nil
}

func planInsert(req *ApiRequest, sc *Schema, rel *Relation, cfg PlanConfig) (*MutatePlan, error) {
	data, cols, err := payload(req, rel)
	if err != nil {
		return nil, err
	}
	p := &MutatePlan{Req: req, Kind: MutateInsert, Rel: rel, Columns: cols, Rows: data, Upsert: req.Prefer.Resolution == "merge-duplicates"}
	if data == "[]" {
		// An empty array inserts nothing (PostgREST answers 201 with no rows).
		p.Empty = true
		return p, nil
	}
	if req.Prefer.Resolution != "" {
		target := req.Query.OnConflict
		if len(target) == 0 {
			target = rel.PK
		}
		for _, c := range target {
			if rel.Column(strings.TrimSpace(c)) == nil {
				return nil, unknownColumn(rel, c)
			}
			p.OnConflict = append(p.OnConflict, strings.TrimSpace(c))
		}
	}
	if p.Returning, err = returning(req, sc, rel, cfg); err != nil {
		return nil, err
	}
	return p, nil
}

func planUpdate(req *ApiRequest, sc *Schema, rel *Relation, cfg PlanConfig) (*MutatePlan, error) {
	data, cols, err := payload(req, rel)
	if err != nil {
		return nil, err
	}
	p := &MutatePlan{Req: req, Kind: MutateUpdate, Rel: rel, Columns: cols, Rows: data}
	if len(cols) == 0 {
		// Nothing to change: PostgREST answers with no rows.
		p.Empty = true
		return p, nil
	}
	var rows []json.RawMessage
	_ = json.Unmarshal([]byte(data), &rows)
	p.Row = string(rows[0])
	if p.Where, err = mutationWhere(req, sc, rel); err != nil {
		return nil, err
	}
	if p.Returning, err = returning(req, sc, rel, cfg); err != nil {
		return nil, err
	}
	return p, nil
}

// mutationWhere resolves the root filters of an update or delete (they cannot name
// embeds: the written rows are embedded only in the body).
func mutationWhere(req *ApiRequest, sc *Schema, rel *Relation) ([]condition, error) {
	pl := &planner{s: sc, q: req.Query}
	return pl.conditions(&readNode{Rel: rel, Alias: "_t0"})
}

func planDelete(req *ApiRequest, sc *Schema, rel *Relation, cfg PlanConfig) (*MutatePlan, error) {
	p := &MutatePlan{Req: req, Kind: MutateDelete, Rel: rel}
	var err error
	if p.Where, err = mutationWhere(req, sc, rel); err != nil {
		return nil, err
	}
	if p.Returning, err = returning(req, sc, rel, cfg); err != nil {
		return nil, err
	}
	return p, nil
}

// planPut is PostgREST's single-row upsert: the filters are exactly the primary key, each
// an eq, and the body is the one row with the same key values. The row is inserted or,
// when the key exists, replaced by the body's columns (RLS applies to both paths).
func planPut(req *ApiRequest, sc *Schema, rel *Relation, cfg PlanConfig) (*MutatePlan, error) {
	q := req.Query
	if _, ok := q.Limit[""]; ok || q.Offset[""] > 0 {
		return nil, errPutLimit()
	}
	keyed := map[string]string{}
	for _, f := range q.Filters[""] {
		if f.Op != operator.Eq || f.Not || len(f.JSON) > 0 {
			keyed = nil
			break
		}
		if _, dup := keyed[f.Column]; dup {
			keyed = nil
			break
		}
		keyed[f.Column] = f.Value
	}
	ok := len(rel.PK) > 0 && keyed != nil && len(keyed) == len(rel.PK) && len(q.Logic[""]) == 0 && len(q.Filters) <= 1
	for _, pk := range rel.PK {
		if _, has := keyed[pk]; !has {
			ok = false
		}
	}
	if !ok {
		return nil, errPutFilters()
	}
	data, cols, err := payload(req, rel)
	if err != nil {
		return nil, err
	}
	var rows []json.RawMessage
	_ = json.Unmarshal([]byte(data), &rows)
	if len(rows) != 1 || len(cols) == 0 {
		return nil, errPutMismatch()
	}
	p := &MutatePlan{Req: req, Kind: MutatePut, Rel: rel, Columns: cols, Rows: data, Row: string(rows[0]), Upsert: true, Key: keyed, OnConflict: rel.PK}
	if p.Returning, err = returning(req, sc, rel, cfg); err != nil {
		return nil, err
	}
	return p, nil
}

// planCall chooses the function the request calls among its overloads (by the names of
// the arguments, from the JSON body for POST or the query string for GET, which calls
// stable and immutable functions only), then resolves its arguments and its rows.
func planCall(req *ApiRequest, sc *Schema, cfg PlanConfig) (*CallPlan, error) {
	args := map[string]json.RawMessage{}
	var rawBody []byte
	kind, post := bodyNone, false
	switch req.Method {
	case http.MethodPost:
		post, kind = true, rpcBodyKind(req.Headers["content-type"])
		rawBody = req.Payload
		if kind == bodyJSON {
			rawBody = bytes.TrimSpace(rawBody)
			if len(rawBody) > 0 && !json.Valid(rawBody) {
				return nil, errInvalidJSON()
			}
			if len(rawBody) > 0 && rawBody[0] == '{' {
				_ = json.Unmarshal(rawBody, &args)
			}
		}
	case http.MethodGet, http.MethodHead:
		for k, v := range req.Query.Args {
			j, _ := json.Marshal(v[0])
			args[k] = j
		}
	default:
		return nil, errRPCMethod(req.Method)
	}
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	f, err := findFunc(sc, req.Target.Schema, req.Target.Name, keys, kind, post)
	if err != nil {
		return nil, err
	}
	if !post && f.Volatile {
		return nil, errVolatileGet()
	}
	p := &CallPlan{Req: req, Func: f, ReadOnly: !(post && f.Volatile), MaxRows: cfg.MaxRows, Count: req.Prefer.Count == "exact"}
	if len(f.Args) == 1 && f.Args[0].Name == "" {
		// PostgREST's one unnamed parameter: the body is the argument.
		if len(rawBody) == 0 && kind == bodyJSON {
			rawBody = []byte("{}")
		}
		body := string(rawBody)
		p.Body = &body
	} else {
		for _, a := range f.Args {
			v, ok := args[a.Name]
			if !ok {
				continue // an optional parameter (findFunc checked the required ones)
			}
			ca := callArg{Name: a.Name, Type: a.Type}
			var str string
			trimmed := bytes.TrimSpace(v)
			switch {
			case json.Unmarshal(v, &str) == nil && a.Type != "json" && a.Type != "jsonb":
				ca.Kind, ca.Value = argText, str
			case string(v) == "null":
				ca.Kind = argNull
			case a.Type == "json" || a.Type == "jsonb":
				ca.Kind, ca.Value = argJSON, string(v)
			case len(trimmed) > 0 && (trimmed[0] == '[' || trimmed[0] == '{'):
				// An array or a row-type (composite) parameter: read from JSON as
				// PostgREST does, with json_to_record.
				ca.Kind, ca.Value = argArray, string(v)
			default:
				ca.Kind, ca.Value = argValue, string(v)
			}
			p.Args = append(p.Args, ca)
		}
	}
	if !f.Void && (f.ReturnsSet || f.ReturnsRow) {
		// Filters, order and limit apply to the rows a set-returning function yields; a
		// function returning a table's rows embeds and computes like that table.
		rel := f.Result
		if f.Table != nil {
			rel = f.Table
		}
		pl := &planner{s: sc, q: req.Query, aggs: cfg.Aggregates}
		n, err := pl.node(rel, "_t0", req.Query.Select, "", true)
		if err != nil {
			return nil, err
		}
		p.Result = n
	}
	return p, nil
}
