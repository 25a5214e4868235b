// Package operator is PostgREST's filter vocabulary as one closed type: every operator
// of a horizontal filter (col=op.value), with how it parses (modifiers), how it is written
// in SQL, and whether Supabase Realtime's postgres_changes filter accepts it. The data API's
// parser, planner and SQL writer and the realtime filter all read it from here, so adding an
// operator is one entry.
package operator

// Op is one operator. The zero Op is no operator.
type Op uint8

const (
	_ Op = iota
	Eq
	Neq
	Gt
	Gte
	Lt
	Lte
	Like
	ILike
	Match
	IMatch
	In
	Is
	IsDistinct
	Cs
	Cd
	Ov
	Sl
	Sr
	Nxl
	Nxr
	Adj
	Fts
	Plfts
	Phfts
	Wfts
	count
)

// Kind is how an operator's value is read and written.
type Kind uint8

const (
	// Compare: a binary SQL operator against the value cast to the column's type.
	Compare Kind = iota + 1
	// Pattern: like/ilike on the column's text, "*" standing for "%".
	Pattern
	// Regex: POSIX regular expression match on the column's text.
	Regex
	// List: in.(a,b,"c,d").
	List
	// Truth: is.null|not_null|true|false|unknown.
	Truth
	// Distinct: is distinct from the value.
	Distinct
	// FullText: @@ a tsquery function, with an optional text search configuration.
	FullText
)

type spec struct {
	name string
	kind Kind
	// sql is the SQL operator (Compare, Pattern, Regex) or the tsquery function (FullText).
	sql string
	// quantified: takes PostgREST's (any) and (all) modifiers.
	quantified bool
	// realtime: one of Supabase Realtime's filter operators (@filter_types).
	realtime bool
}

var specs = [count]spec{
	Eq:         {"eq", Compare, "=", true, true},
	Neq:        {"neq", Compare, "<>", true, true},
	Gt:         {"gt", Compare, ">", true, true},
	Gte:        {"gte", Compare, ">=", true, true},
	Lt:         {"lt", Compare, "<", true, true},
	Lte:        {"lte", Compare, "<=", true, true},
	Like:       {"like", Pattern, "like", true, true},
	ILike:      {"ilike", Pattern, "ilike", true, true},
	Match:      {"match", Regex, "~", true, true},
	IMatch:     {"imatch", Regex, "~*", true, true},
	In:         {"in", List, "", false, true},
	Is:         {"is", Truth, "", false, true},
	IsDistinct: {"isdistinct", Distinct, "", false, true},
	Cs:         {"cs", Compare, "@>", false, false},
	Cd:         {"cd", Compare, "<@", false, false},
	Ov:         {"ov", Compare, "&&", false, false},
	Sl:         {"sl", Compare, "<<", false, false},
	Sr:         {"sr", Compare, ">>", false, false},
	Nxl:        {"nxl", Compare, "&>", false, false},
	Nxr:        {"nxr", Compare, "&<", false, false},
	Adj:        {"adj", Compare, "-|-", false, false},
	Fts:        {"fts", FullText, "to_tsquery", false, false},
	Plfts:      {"plfts", FullText, "plainto_tsquery", false, false},
	Phfts:      {"phfts", FullText, "phraseto_tsquery", false, false},
	Wfts:       {"wfts", FullText, "websearch_to_tsquery", false, false},
}

var byName = func() map[string]Op {
	m := make(map[string]Op, count)
	for o := Op(1); o < count; o++ {
		m[specs[o].name] = o
	}
	return m
}()

// Parse reads an operator's name as it appears in a filter ("eq", "ilike", …).
func Parse(name string) (Op, bool) {
	o, ok := byName[name]
	return o, ok
}

// All lists every operator, in a fixed order.
func All() []Op {
	out := make([]Op, 0, count-1)
	for o := Op(1); o < count; o++ {
		out = append(out, o)
	}
	return out
}

// String is the operator's name in a filter.
func (o Op) String() string {
	if o == 0 || o >= count {
		return ""
	}
	return specs[o].name
}

// Kind says how the operator's value is read and written.
func (o Op) Kind() Kind { return specs[o].kind }

// SQL is the SQL operator of a Compare, Pattern or Regex operator.
func (o Op) SQL() string {
	if k := o.Kind(); k == Compare || k == Pattern || k == Regex {
		return specs[o].sql
	}
	return ""
}

// TSQuery is the tsquery function of a FullText operator ("" for the others).
func (o Op) TSQuery() string {
	if o.Kind() == FullText {
		return specs[o].sql
	}
	return ""
}

// Quantified reports whether the operator takes the (any) and (all) modifiers.
func (o Op) Quantified() bool { return specs[o].quantified }

// TakesArgument reports whether an operator accepts a parenthesised argument: the
// quantifiers, or a full-text operator's text search configuration.
func (o Op) TakesArgument() bool { return o.Quantified() || o.Kind() == FullText }

// Realtime reports whether Supabase Realtime's postgres_changes filter accepts it.
func (o Op) Realtime() bool { return specs[o].realtime }

// MarshalText writes the operator's name (a parsed query reads as its source in JSON).
func (o Op) MarshalText() ([]byte, error) { return []byte(o.String()), nil }
