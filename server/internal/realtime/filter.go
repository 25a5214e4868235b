package realtime

import (
	"bytes"
	"casus/server/internal/postgrest/operator"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// A postgres_changes filter as Supabase Realtime reads it: comma-separated conditions
// "column=[not.]op.value", ANDed (subscriptions.ex parse_subscription_params, and
// realtime.is_visible_through_filters). A change reaches a subscription only when every
// condition holds; a condition on a NULL column is false unless it is "is" or "isdistinct",
// as in SQL (check_equality_op).
type changeFilter struct {
	conds []condition
}

type condition struct {
	column string
	op     operator.Op
	negate bool
	value  string   // the operand as Realtime passes it to PostgreSQL, unquoted
	values []string // the elements of an "in" list
	kind   valueKind
	re     *regexp.Regexp // like, ilike, match, imatch
}

// maxInValues is Realtime's bound on an "in" list (subscription_check_filters).
const maxInValues = 100

// filterError is a filter Realtime refuses when the subscription is created. Like
// Supabase, the join still succeeds and the reason arrives as a postgres_changes system
// error; no change is delivered on that channel.
type filterError struct{ msg string }

func (e *filterError) Error() string { return e.msg }

func parseError(reason string) error {
	return &filterError{"Error parsing `filter` params: " + reason}
}

// elixirList prints strings as Elixir's inspect prints a list of binaries, the form
// Realtime's parse errors quote (`["foo", "hey"]`).
func elixirList(parts ...string) string {
	q := make([]string, len(parts))
	for i, p := range parts {
		b, _ := json.Marshal(p)
		q[i] = string(b)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// parseFilter reads a filter string; an empty (or blank) one is no filter.
func parseFilter(s string) (*changeFilter, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	f := &changeFilter{}
	for _, seg := range splitTopLevel(s) {
		seg = strings.TrimSpace(seg)
		if seg == "" {
			return nil, parseError("filter must not contain empty segments (check for extra commas)")
		}
		col, rest, ok := strings.Cut(seg, "=")
		if !ok {
			return nil, parseError(elixirList(seg))
		}
		c := condition{column: col}
		if after, ok := strings.CutPrefix(rest, "not."); ok {
			c.negate, rest = true, after
		}
		op, val, ok := strings.Cut(rest, ".")
		if !ok {
			return nil, parseError(elixirList(rest))
		}
		// Realtime's operators (@filter_types) are a subset of PostgREST's vocabulary.
		o, known := operator.Parse(op)
		if !known || !o.Realtime() {
			return nil, parseError(elixirList(op, val))
		}
		c.op = o
		if o == operator.In {
			if len(val) < 2 || val[0] != '(' || val[len(val)-1] != ')' {
				return nil, parseError("`in` filter value must be wrapped by parentheses")
			}
			c.value = "{" + val[1:len(val)-1] + "}"
			c.values = splitArrayLiteral(val[1 : len(val)-1])
		} else {
			c.value = unquote(val)
		}
		f.conds = append(f.conds, c)
	}
	return f, nil
}

// splitTopLevel splits at commas outside parentheses and double quotes, as Realtime does
// (a quote opens a quoted value only after ".", "(" or ",").
func splitTopLevel(s string) []string {
	var out []string
	var cur strings.Builder
	depth, quoted := 0, false
	var prev byte
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quoted && ch == '\\' && i+1 < len(s):
			cur.WriteByte(ch)
			i++
			ch = s[i]
		case quoted && ch == '"':
			quoted = false
		case quoted:
		case ch == '"' && (prev == '.' || prev == '(' || prev == ','):
			quoted = true
		case ch == '(':
			depth++
		case ch == ')':
			depth = max(0, depth-1)
		case ch == ',' && depth == 0:
			out = append(out, cur.String())
			cur.Reset()
			prev = 0
			continue
		}
		cur.WriteByte(ch)
		prev = ch
	}
	return append(out, cur.String())
}

// unquote removes a value's surrounding double quotes and backslash escapes; a value
// that is not one well-formed quoted string stays as written.
func unquote(v string) string {
	if !strings.HasPrefix(v, `"`) {
		return v
	}
	var b strings.Builder
	for i := 1; i < len(v); i++ {
		switch v[i] {
		case '\\':
			if i+1 >= len(v) {
				return v
			}
			i++
			b.WriteByte(v[i])
		case '"':
			if i != len(v)-1 {
				return v
			}
			return b.String()
		default:
			b.WriteByte(v[i])
		}
	}
	return v
}

// splitArrayLiteral reads the elements of a PostgreSQL array literal's body ("a, "b,c"")
// as array input does: unquoted elements are trimmed, quoted ones keep their text.
func splitArrayLiteral(s string) []string {
	var out []string
	var cur strings.Builder
	quoted, wasQuoted := false, false
	flush := func() {
		v := cur.String()
		if !wasQuoted {
			v = strings.TrimSpace(v)
		}
		out = append(out, v)
		cur.Reset()
		wasQuoted = false
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
		case ch == '"':
			quoted = !quoted
			if quoted {
				cur.Reset() // spaces before an opening quote are not part of the element
				wasQuoted = true
			}
		case ch == ',' && !quoted:
			flush()
		case wasQuoted && !quoted:
			// spaces after a closing quote
		default:
			cur.WriteByte(ch)
		}
	}
	if strings.TrimSpace(s) != "" || len(out) > 0 {
		flush()
	}
	return out
}

// valueKind is how a column's values compare, after its type.
type valueKind int

const (
	kindText valueKind = iota
	kindNumber
	kindBool
	kindTime
	kindUUID
	kindOther // json, arrays, …: compared as their text
)

func kindOf(udt string) valueKind {
	switch udt {
	case "int2", "int4", "int8", "float4", "float8", "numeric", "oid":
		return kindNumber
	case "bool":
		return kindBool
	case "timestamptz", "timestamp", "date":
		return kindTime
	case "uuid":
		return kindUUID
	case "text", "varchar", "bpchar", "name", "citext":
		return kindText
	}
	return kindOther
}

// bind checks each condition against the column it names, as Realtime's
// subscription_check_filters does when the subscription is stored: the column exists, the
// value casts to its type, the operator applies to it. columnType is the udt name and
// sqlType the printed type of a column ("" when there is no such column).
func (f *changeFilter) bind(columnType func(string) (udt, sqlType string)) error {
	if f == nil {
		return nil
	}
	for i := range f.conds {
		c := &f.conds[i]
		udt, sqlType := columnType(c.column)
		if udt == "" {
			return fmt.Errorf("invalid column for filter %s", c.column)
		}
		c.kind = kindOf(udt)
		switch c.op {
		case operator.In:
			if len(c.values) > maxInValues {
				return fmt.Errorf("too many values for `in` filter. Maximum %d", maxInValues)
			}
			for _, v := range c.values {
				if err := castable(c.kind, sqlType, v); err != nil {
					return err
				}
			}
		case operator.Is:
			switch c.value {
			case "null":
			case "true", "false", "unknown":
				if c.kind != kindBool {
					return fmt.Errorf("is %s filter requires a boolean column, got %s", c.value, sqlType)
				}
			default:
				return fmt.Errorf("invalid value for is filter: must be null, true, false, or unknown")
			}
		case operator.Like, operator.ILike:
			if c.kind != kindText {
				return fmt.Errorf("operator %s requires a text-compatible column type, got %s", c.op, sqlType)
			}
			re, err := regexp.Compile(likePattern(c.value, c.op == operator.ILike))
			if err != nil {
				return fmt.Errorf("invalid pattern for %s filter: %v", c.op, err)
			}
			c.re = re
		case operator.Match, operator.IMatch:
			if c.kind != kindText {
				return fmt.Errorf("operator %s requires a text-compatible column type, got %s", c.op, sqlType)
			}
			pat := c.value
			if c.op == operator.IMatch {
				pat = "(?i)" + pat
			}
			re, err := regexp.Compile(pat)
			if err != nil {
				return fmt.Errorf("invalid regular expression for %s filter: %v", c.op, err)
			}
			c.re = re
		default:
			if err := castable(c.kind, sqlType, c.value); err != nil {
				return err
			}
		}
	}
	return nil
}

// castable reports PostgreSQL's input error when v is no value of the column's type.
func castable(kind valueKind, sqlType, v string) error {
	ok := true
	switch kind {
	case kindNumber:
		_, ok = parseNumber(v)
		if ok && (sqlType == "smallint" || sqlType == "integer" || sqlType == "bigint") {
			_, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			ok = err == nil // integer input takes no fraction or exponent
		}
	case kindBool:
		_, ok = parseBool(v)
	case kindTime:
		_, ok = parseTime(v)
	case kindUUID:
		_, ok = normUUID(v)
	}
	if !ok {
		return fmt.Errorf("invalid input syntax for type %s: %q", sqlType, v)
	}
	return nil
}

// likePattern translates a LIKE pattern (% any run, _ one character, \ escapes) to an
// anchored regular expression.
func likePattern(p string, fold bool) string {
	var b strings.Builder
	b.WriteString("(?s)")
	if fold {
		b.WriteString("(?i)")
	}
	b.WriteString("^")
	rs := []rune(p)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; r {
		case '%':
			b.WriteString(".*")
		case '_':
			b.WriteString(".")
		case '\\':
			if i+1 < len(rs) {
				i++
			}
			b.WriteString(regexp.QuoteMeta(string(rs[i])))
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	return b.String()
}

// columns lists the columns the filter reads.
// readableBy reports whether role may SELECT every column the filter names.
func (f *changeFilter) readableBy(ti *tableInfo, role string) bool {
	if f == nil {
		return true
	}
	for i := range f.conds {
		if !ti.mayRead(role, f.conds[i].column) {
			return false
		}
	}
	return true
}

// matches evaluates every condition against a row of JSON values (to_jsonb of the row).
func (f *changeFilter) matches(row map[string]json.RawMessage) bool {
	if f == nil {
		return true
	}
	for i := range f.conds {
		if !f.conds[i].holds(row) {
			return false
		}
	}
	return true
}

func (c *condition) holds(row map[string]json.RawMessage) bool {
	raw, ok := row[c.column]
	if !ok {
		return false // Realtime: a filter column missing from the record never matches
	}
	v, isNull := sqlText(raw)
	switch c.op {
	case operator.Is:
		var res bool
		switch c.value {
		case "null":
			res = isNull
		case "unknown":
			res = isNull
		case "true", "false":
			b, _ := parseBool(v)
			res = !isNull && b == (c.value == "true")
		}
		return res != c.negate
	case operator.IsDistinct:
		distinct := isNull || compareAs(c.kind, v, c.value) != 0
		return distinct != c.negate
	}
	if isNull {
		return false // NULL op x is NULL, and so is NOT NULL: never a match
	}
	var res bool
	switch c.op {
	case operator.Eq:
		res = compareAs(c.kind, v, c.value) == 0
	case operator.Neq:
		res = compareAs(c.kind, v, c.value) != 0
	case operator.Lt:
		res = compareAs(c.kind, v, c.value) < 0
	case operator.Lte:
		res = compareAs(c.kind, v, c.value) <= 0
	case operator.Gt:
		res = compareAs(c.kind, v, c.value) > 0
	case operator.Gte:
		res = compareAs(c.kind, v, c.value) >= 0
	case operator.In:
		for _, want := range c.values {
			if compareAs(c.kind, v, want) == 0 {
				res = true
				break
			}
		}
	case operator.Like, operator.ILike:
		res = c.re.MatchString(v)
	case operator.Match, operator.IMatch:
		res = c.re.MatchString(v)
	}
	return res != c.negate
}

// sqlText is a JSON value as its SQL text (strings unquoted, numbers verbatim, objects
// and arrays as JSON); null is SQL NULL.
func sqlText(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' && bytes.IndexByte(raw, '\\') < 0 {
		// Without an escape the text between the quotes is the string: no decoding.
		return string(raw[1 : n-1]), false
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s, false
		}
	}
	return string(raw), false
}

// compareAs orders a column's value against a filter operand by the column's type; an
// operand that does not parse compares as text (bind refuses those at join).
func compareAs(kind valueKind, v, want string) int {
	switch kind {
	case kindNumber:
		a, ok1 := parseNumber(v)
		b, ok2 := parseNumber(want)
		if ok1 && ok2 {
			return a.Cmp(b)
		}
	case kindBool:
		a, ok1 := parseBool(v)
		b, ok2 := parseBool(want)
		if ok1 && ok2 {
			switch {
			case a == b:
				return 0
			case !a:
				return -1
			}
			return 1
		}
	case kindTime:
		a, ok1 := parseTime(v)
		b, ok2 := parseTime(want)
		if ok1 && ok2 {
			return a.Compare(b)
		}
	case kindUUID:
		a, ok1 := normUUID(v)
		b, ok2 := normUUID(want)
		if ok1 && ok2 {
			return strings.Compare(a, b)
		}
	}
	return strings.Compare(v, want)
}

func parseNumber(s string) (*big.Rat, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, false
	}
	return new(big.Rat).SetString(s)
}

func parseBool(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "t", "true", "y", "yes", "on", "1":
		return true, true
	case "f", "false", "n", "no", "off", "0":
		return false, true
	}
	return false, false
}

// timeLayouts are the forms to_jsonb writes and the ISO forms a filter is written in.
var timeLayouts = []string{
	time.RFC3339Nano, "2006-01-02T15:04:05.999999999Z07", "2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999Z07", "2006-01-02 15:04:05.999999999",
	"2006-01-02",
}

// parseTime reads a timestamp; one without an offset is taken as UTC (the server's zone
// for timestamptz input here, and the only meaning a timestamp without time zone has).
func parseTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

func normUUID(s string) (string, bool) {
	s = strings.ToLower(strings.Trim(strings.TrimSpace(s), "{}"))
	s = strings.ReplaceAll(s, "-", "")
	if len(s) != 32 {
		return "", false
	}
	if _, err := strconv.ParseUint(s[:16], 16, 64); err != nil {
		return "", false
	}
	if _, err := strconv.ParseUint(s[16:], 16, 64); err != nil {
		return "", false
	}
	return s, true
}

// logForm prints the conditions as Realtime's error messages list them
// ([{"col", "op", "value", negate}]).
func (f *changeFilter) logForm() string {
	if f == nil {
		return "[]"
	}
	parts := make([]string, len(f.conds))
	for i, c := range f.conds {
		col, _ := json.Marshal(c.column)
		val, _ := json.Marshal(c.value)
		parts[i] = fmt.Sprintf("{%s, %q, %s, %t}", col, c.op, val, c.negate)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// parseSelect reads postgres_changes' "select" option as Realtime does: a list keeps its
// strings (none: no selection), a string is refused, anything else is no selection.
func parseSelect(raw json.RawMessage) ([]string, error) {
	var list []any
	if len(raw) == 0 || json.Unmarshal(raw, &list) != nil {
		var s string
		if len(raw) > 0 && json.Unmarshal(raw, &s) == nil {
			return nil, &filterError{`Error parsing ` + "`select`" + ` params: expected a list of column name strings, e.g. select: ["col1", "col2"]`}
		}
		return nil, nil
	}
	var out []string
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out, nil
}
