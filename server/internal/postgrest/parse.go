package postgrest

import (
	"casus/server/internal/postgrest/operator"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// SelectItem is one element of a select= tree.
type SelectItem struct {
	Star   bool
	Alias  string
	Column string
	JSON   []jsonStep // ->a ->>b
	Cast   string
	Embed  *Embed
	Spread bool
	// Agg is count, sum, avg, min or max (PostgREST v12 aggregates: "count()", "col.sum()");
	// Column is empty for count().
	Agg string
}

type jsonStep struct {
	Op  string // -> or ->>
	Key string
}

// Embed is a resource embedded through a foreign key.
type Embed struct {
	Relation string
	Hint     string
	Inner    bool
	Select   []SelectItem
}

// Filter is one condition col=op.value.
type Filter struct {
	Column string
	JSON   []jsonStep
	Not    bool
	Op     operator.Op
	Arg    string // (any) / (all), or a full-text operator's text search configuration
	Value  string
}

// Logic is an or/and tree of filters.
type Logic struct {
	Op       string // and | or
	Not      bool
	Filters  []Filter
	Children []*Logic
}

// OrderTerm is one order= element. Relation names a to-one embed whose column orders the
// rows (PostgREST v11+: order=clients(name).desc).
type OrderTerm struct {
	Relation   string
	Column     string
	JSON       []jsonStep
	Desc       bool
	NullsFirst *bool
}

// Query is the parsed query string of one request: per embed path ("" = root).
type Query struct {
	Select     []SelectItem
	Filters    map[string][]Filter
	Logic      map[string][]*Logic
	Order      map[string][]OrderTerm
	Limit      map[string]int
	Offset     map[string]int
	Columns    []string
	OnConflict []string
	Args       url.Values // non-reserved params of GET rpc calls
}

// reserved query parameters that are not filters.
var reserved = map[string]bool{"select": true, "order": true, "limit": true, "offset": true, "columns": true, "on_conflict": true, "or": true, "and": true, "not.or": true, "not.and": true}

func parseQuery(v url.Values, rpc bool) (*Query, error) {
	q := &Query{Filters: map[string][]Filter{}, Logic: map[string][]*Logic{}, Order: map[string][]OrderTerm{}, Limit: map[string]int{}, Offset: map[string]int{}, Args: url.Values{}}
	sel := v.Get("select")
	if sel == "" {
		sel = "*"
	}
	var err error
	if q.Select, err = parseSelect(sel); err != nil {
		return nil, err
	}
	// Keys in a fixed order: the same request always yields the same statement text
	// (stable golden files, and pgx's statement cache hits).
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		vals := v[key]
		path, last := splitPath(key)
		for _, val := range vals {
			switch last {
			case "select":
				continue
			case "order":
				terms, err := parseOrder(val)
				if err != nil {
					return nil, err
				}
				q.Order[path] = append(q.Order[path], terms...)
			case "limit", "offset":
				n, err := strconv.Atoi(val)
				if err != nil || n < 0 {
					return nil, errInvalidNumber(val, last)
				}
				if last == "limit" {
					q.Limit[path] = n
				} else {
					q.Offset[path] = n
				}
			case "columns":
				q.Columns = identList(val)
			case "on_conflict":
				q.OnConflict = identList(val)
			case "or", "and", "not.or", "not.and":
				l, err := parseLogic(last, val)
				if err != nil {
					return nil, err
				}
				q.Logic[path] = append(q.Logic[path], l)
			default:
				if rpc && path == "" && !strings.Contains(val, ".") {
					q.Args.Add(key, val)
					continue
				}
				f, err := parseFilter(last, val)
				if err != nil {
					if rpc && path == "" {
						q.Args.Add(key, val)
						continue
					}
					return nil, err
				}
				q.Filters[path] = append(q.Filters[path], f)
			}
		}
	}
	return q, nil
}

// splitPath turns "cases.case_articles.order" into ("cases.case_articles", "order"),
// recognising the reserved suffixes; plain filters keep their column.
func splitPath(key string) (string, string) {
	for _, suf := range []string{"not.or", "not.and", "order", "limit", "offset", "or", "and", "select"} {
		if key == suf {
			return "", suf
		}
		if strings.HasSuffix(key, "."+suf) {
			return strings.TrimSuffix(key, "."+suf), suf
		}
	}
	// embedded filter "rel.col=..." (no JSON arrows in the column part; a quoted
	// column name may hold dots)
	if i := lastDotOutsideQuotes(key); i > 0 && !strings.Contains(key, "->") {
		return key[:i], key[i+1:]
	}
	return "", key
}

// lastDotOutsideQuotes is the index of the last '.' of s outside double quotes, or -1.
func lastDotOutsideQuotes(s string) int {
	last, quoted := -1, false
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && quoted:
			i++
		case s[i] == '"':
			quoted = !quoted
		case s[i] == '.' && !quoted:
			last = i
		}
	}
	return last
}

// cutColumn splits "col.rest" at the first '.' after the column name, which may be
// double-quoted (PostgREST's "my col".eq.1).
func cutColumn(s string) (string, string, bool) {
	if strings.HasPrefix(s, `"`) {
		if end := closingQuote(s); end > 0 {
			if end+1 < len(s) && s[end+1] == '.' {
				return s[:end+1], s[end+2:], true
			}
			if i := strings.IndexByte(s[end+1:], '.'); i >= 0 {
				return s[:end+1+i], s[end+2+i:], true
			}
			return s, "", false
		}
	}
	return strings.Cut(s, ".")
}

// closingQuote is the index of the quote closing the one s starts with, or -1.
func closingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

func parseFilter(colExpr, val string) (Filter, error) {
	f := Filter{}
	col, steps, err := parseColumnExpr(colExpr)
	if err != nil {
		return f, err
	}
	f.Column, f.JSON = col, steps
	if strings.HasPrefix(val, "not.") {
		f.Not = true
		val = val[4:]
	}
	op, rest, ok := strings.Cut(val, ".")
	if !ok {
		return f, errQueryParam(fmt.Sprintf("failed to parse filter (%s)", val), "")
	}
	if i := strings.IndexByte(op, '('); i > 0 && strings.HasSuffix(op, ")") {
		f.Arg = op[i+1 : len(op)-1]
		op = op[:i]
	}
	o, known := operator.Parse(op)
	if !known {
		return f, errQueryParam(fmt.Sprintf("failed to parse filter (%s.%s)", op, rest), "unknown operator "+op)
	}
	f.Op, f.Value = o, rest
	return f, nil
}

// parseLogic reads "(a.eq.1,b.gt.2,and(c.eq.3,not.d.eq.4))".
func parseLogic(name, val string) (*Logic, error) {
	l := &Logic{Op: strings.TrimPrefix(name, "not.")}
	l.Not = strings.HasPrefix(name, "not.")
	if !strings.HasPrefix(val, "(") || !strings.HasSuffix(val, ")") {
		return nil, errQueryParam(fmt.Sprintf("failed to parse logic tree (%s)", val), "expecting \"(\"")
	}
	for _, part := range splitTop(val[1:len(val)-1], ',') {
		part = strings.TrimSpace(part)
		sub := part
		neg := strings.HasPrefix(sub, "not.")
		if neg {
			sub = sub[4:]
		}
		if (strings.HasPrefix(sub, "or(") || strings.HasPrefix(sub, "and(")) && strings.HasSuffix(sub, ")") {
			op := sub[:strings.IndexByte(sub, '(')]
			name := op
			if neg {
				name = "not." + op
			}
			child, err := parseLogic(name, sub[len(op):])
			if err != nil {
				return nil, err
			}
			l.Children = append(l.Children, child)
			continue
		}
		// "col.op.value"; "embed.not.is.null" / "embed.is.null" filter by an embed's
		// presence (the builder tells columns and embeds apart).
		col, rest, ok := cutColumn(part)
		if !ok {
			return nil, errQueryParam(fmt.Sprintf("failed to parse logic tree (%s)", val), "")
		}
		f, err := parseFilter(col, rest)
		if err != nil {
			return nil, err
		}
		l.Filters = append(l.Filters, f)
	}
	return l, nil
}

func parseOrder(val string) ([]OrderTerm, error) {
	var out []OrderTerm
	for _, part := range splitTop(val, ',') {
		var t OrderTerm
		head, mods := part, ""
		if open := strings.IndexByte(part, '('); open >= 0 {
			// relation(column[->path]) followed by the modifiers.
			end := strings.IndexByte(part, ')')
			if end < open || open == 0 || !validIdent(part[:open]) {
				return nil, errQueryParam(fmt.Sprintf("failed to parse order (%s)", val), "")
			}
			t.Relation = part[:open]
			head, mods = part[open+1:end], part[end+1:]
			if mods != "" && !strings.HasPrefix(mods, ".") {
				return nil, errQueryParam(fmt.Sprintf("failed to parse order (%s)", val), "")
			}
		} else if c, rest, ok := cutColumn(part); ok {
			head, mods = c, "."+rest
		}
		col, steps, err := parseColumnExpr(head)
		if err != nil {
			return nil, err
		}
		t.Column, t.JSON = col, steps
		var segs []string
		if mods != "" {
			segs = strings.Split(mods[1:], ".")
		}
		for _, s := range segs {
			switch s {
			case "asc":
			case "desc":
				t.Desc = true
			case "nullsfirst":
				b := true
				t.NullsFirst = &b
			case "nullslast":
				b := false
				t.NullsFirst = &b
			default:
				return nil, errQueryParam(fmt.Sprintf("failed to parse order (%s)", val), "unexpected \""+s+"\"")
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// parseColumnExpr reads col->a->>b. The column name may be double-quoted ("my col",
// with backslash escapes) or hold spaces (trimmed at its ends), as in PostgREST.
func parseColumnExpr(s string) (string, []jsonStep, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, `"`) {
		end := closingQuote(s)
		if end < 0 {
			return "", nil, errQueryParam(fmt.Sprintf("failed to parse column (%s)", s), "")
		}
		col := unescapeQuoted(s[1:end])
		if end+1 == len(s) {
			if col == "" {
				return "", nil, errQueryParam(fmt.Sprintf("failed to parse column (%s)", s), "")
			}
			return col, nil, nil
		}
		if !strings.HasPrefix(s[end+1:], "->") {
			return "", nil, errQueryParam(fmt.Sprintf("failed to parse column (%s)", s), "")
		}
		_, steps, err := parseColumnExpr("x" + s[end+1:])
		return col, steps, err
	}
	i := strings.Index(s, "->")
	if i < 0 {
		if !validColumn(s) {
			return "", nil, errQueryParam(fmt.Sprintf("failed to parse column (%s)", s), "")
		}
		return s, nil, nil
	}
	col := strings.TrimSpace(s[:i])
	rest := s[i:]
	var steps []jsonStep
	for rest != "" {
		op := "->"
		if strings.HasPrefix(rest, "->>") {
			op = "->>"
		} else if !strings.HasPrefix(rest, "->") {
			return "", nil, errQueryParam(fmt.Sprintf("failed to parse json path (%s)", s), "")
		}
		rest = rest[len(op):]
		j := strings.Index(rest, "->")
		key := rest
		if j >= 0 {
			key, rest = rest[:j], rest[j:]
		} else {
			rest = ""
		}
		if key == "" {
			return "", nil, errQueryParam(fmt.Sprintf("failed to parse json path (%s)", s), "")
		}
		steps = append(steps, jsonStep{Op: op, Key: key})
	}
	if !validColumn(col) {
		return "", nil, errQueryParam(fmt.Sprintf("failed to parse column (%s)", s), "")
	}
	return col, steps, nil
}

// validColumn is an unquoted column name: an identifier that may hold inner spaces.
func validColumn(s string) bool {
	return validIdent(strings.ReplaceAll(s, " ", "_"))
}

func unescapeQuoted(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func validIdent(s string) bool {
	if s == "" || len(s) > 63 {
		return false
	}
	for _, r := range s {
		if r == '"' || r == '(' || r == ')' || r == ',' || r == ':' || r == '.' || r == ' ' || r == '\x00' {
			return false
		}
	}
	return true
}

func parseSelect(s string) ([]SelectItem, error) {
	var items []SelectItem
	for _, part := range splitTop(s, ',') {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		it, err := parseSelectItem(part)
		if err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	if len(items) == 0 {
		return []SelectItem{{Star: true}}, nil
	}
	return items, nil
}

func parseSelectItem(s string) (SelectItem, error) {
	bad := func() (SelectItem, error) {
		return SelectItem{}, errQueryParam(fmt.Sprintf("failed to parse select parameter (%s)", s), "")
	}
	if s == "*" {
		return SelectItem{Star: true}, nil
	}
	it := SelectItem{}
	if strings.HasPrefix(s, "...") {
		it.Spread = true
		s = s[3:]
	}
	if !it.Spread {
		if agg, ok, err := parseAggregate(s); ok || err != nil {
			return agg, err
		}
	}
	if open := strings.IndexByte(s, '('); open >= 0 {
		if !strings.HasSuffix(s, ")") {
			return bad()
		}
		head, body := s[:open], s[open+1:len(s)-1]
		if head == "" {
			return bad()
		}
		e := &Embed{}
		if a, rest, ok := strings.Cut(head, ":"); ok {
			it.Alias, head = a, rest
		}
		parts := strings.Split(head, "!")
		e.Relation = parts[0]
		for _, p := range parts[1:] {
			if p == "inner" {
				e.Inner = true
			} else if p == "left" {
			} else {
				e.Hint = p
			}
		}
		if !validIdent(e.Relation) {
			return bad()
		}
		if strings.TrimSpace(body) != "" {
			// "rel()" selects nothing (PostgREST omits it from the output).
			sub, err := parseSelect(body)
			if err != nil {
				return SelectItem{}, err
			}
			e.Select = sub
		}
		it.Embed = e
		return it, nil
	}
	if it.Spread {
		return bad()
	}
	if a, rest, ok := strings.Cut(s, ":"); ok && !strings.HasPrefix(rest, ":") {
		it.Alias, s = a, rest
		if len(a) >= 2 && a[0] == '"' && a[len(a)-1] == '"' {
			it.Alias = a[1 : len(a)-1] // "an alias with spaces", as supabase-js keeps it
		}
	}
	if c, cast, ok := strings.Cut(s, "::"); ok {
		s, it.Cast = c, cast
		if !validIdent(it.Cast) {
			return bad()
		}
	}
	col, steps, err := parseColumnExpr(s)
	if err != nil {
		return SelectItem{}, err
	}
	it.Column, it.JSON = col, steps
	if it.Alias == "" && len(steps) > 0 {
		it.Alias = steps[len(steps)-1].Key
	}
	return it, nil
}

var aggFuncs = map[string]bool{"count": true, "sum": true, "avg": true, "min": true, "max": true}

// parseAggregate recognises "[alias:][col[->path].]fn()[::cast]"; ok is false for anything
// that is not an aggregate (an embed or a column).
func parseAggregate(s string) (SelectItem, bool, error) {
	it := SelectItem{}
	i := strings.Index(s, "()")
	if i < 0 {
		return it, false, nil
	}
	head, tail := s[:i], s[i+2:]
	if tail != "" {
		if !strings.HasPrefix(tail, "::") || !validIdent(tail[2:]) {
			return it, false, nil
		}
		it.Cast = tail[2:]
	}
	if a, rest, ok := strings.Cut(head, ":"); ok {
		it.Alias, head = a, rest
	}
	fn := head
	if j := strings.LastIndexByte(head, '.'); j >= 0 {
		fn = head[j+1:]
		col, steps, err := parseColumnExpr(head[:j])
		if err != nil {
			return it, true, err
		}
		it.Column, it.JSON = col, steps
	}
	if !aggFuncs[fn] {
		return it, false, nil
	}
	if fn != "count" && it.Column == "" {
		// PostgREST's grammar has no sum() without a column: "sum()" is an embed of a
		// relation named sum, with an empty select (PGRST200 when there is none).
		return it, false, nil
	}
	it.Agg = fn
	return it, true, nil
}

// identList reads a columns=/on_conflict= list; supabase-js double-quotes each name.
func identList(val string) []string {
	parts := splitTop(val, ',')
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if len(p) >= 2 && p[0] == '"' && p[len(p)-1] == '"' {
			p = p[1 : len(p)-1]
		}
		parts[i] = p
	}
	return parts
}

// splitTop splits on sep outside parentheses and double quotes.
func splitTop(s string, sep byte) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == sep && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
