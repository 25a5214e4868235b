package postgrest

import (
	"cmp"
	"slices"
	"strings"
)

// bodyKind is how a POSTed RPC body is read, after its Content-Type: as JSON arguments
// (application/json), or as the one unnamed argument (text/plain, text/xml,
// application/octet-stream).
type bodyKind string

const (
	bodyNone  bodyKind = ""
	bodyJSON  bodyKind = "json"
	bodyText  bodyKind = "text"
	bodyXML   bodyKind = "xml"
	bodyBytes bodyKind = "bytea"
)

// rpcBodyKind reads the Content-Type of a POSTed RPC call.
func rpcBodyKind(contentType string) bodyKind {
	mt, _, _ := strings.Cut(contentType, ";")
	switch strings.ToLower(strings.TrimSpace(mt)) {
	case "text/plain":
		return bodyText
	case "text/xml":
		return bodyXML
	case "application/octet-stream":
		return bodyBytes
	}
	return bodyJSON
}

// findFunc chooses the overload of schema.name that the argument names call, as
// PostgREST does: a function whose required parameters are all given and whose other
// given arguments are optional parameters; failing that, on POST, the function with one
// unnamed parameter of the body's type. None is PGRST202, several PGRST203.
func findFunc(sc *Schema, schema, name string, argKeys []string, kind bodyKind, post bool) (*Func, error) {
	procs := sc.Overloads[schema+"."+name]
	keys := slices.Clone(argKeys)
	slices.Sort(keys)
	keys = slices.Compact(keys)
	var matched, fallback []*Func
	for _, f := range procs {
		switch {
		case matchesArgs(f, keys, kind, post):
			matched = append(matched, f)
		case post && len(f.Args) == 1 && f.Unnamed != "" && unnamedAccepts(f.Unnamed, kind):
			fallback = append(fallback, f)
		}
	}
	switch {
	case len(matched) == 1:
		return matched[0], nil
	case len(matched) > 1:
		return nil, ambiguousFunc(matched)
	case len(fallback) == 1:
		return fallback[0], nil
	case len(fallback) > 1:
		return nil, ambiguousFunc(fallback)
	}
	return nil, funcNotFound(sc, schema, name, keys, kind, post, procs)
}

func unnamedAccepts(typ string, kind bodyKind) bool {
	switch kind {
	case bodyJSON:
		return typ == "json" || typ == "jsonb"
	case bodyText:
		return typ == "text"
	case bodyXML:
		return typ == "xml"
	case bodyBytes:
		return typ == "bytea"
	}
	return false
}

func matchesArgs(f *Func, keys []string, kind bodyKind, post bool) bool {
	if len(f.Args) == 0 {
		return len(keys) == 0 && !(post && kind != bodyJSON)
	}
	given := map[string]bool{}
	for _, k := range keys {
		given[k] = true
	}
	for _, a := range f.Args {
		if !a.HasDefault && !given[a.Name] {
			return false
		}
		delete(given, a.Name)
	}
	return len(given) == 0
}

// ambiguousFunc is PGRST203, naming each candidate with its parameters, in PostgREST's
// order: its schema cache keeps a name's overloads sorted by their parameters (name,
// then type), not in creation order.
func ambiguousFunc(procs []*Func) *Error {
	procs = slices.Clone(procs)
	slices.SortStableFunc(procs, func(a, b *Func) int {
		for i := 0; i < len(a.Args) && i < len(b.Args); i++ {
			if c := cmp.Or(cmp.Compare(a.Args[i].Name, b.Args[i].Name), cmp.Compare(a.Args[i].Type, b.Args[i].Type)); c != 0 {
				return c
			}
		}
		return cmp.Compare(len(a.Args), len(b.Args))
	})
	var names []string
	for _, f := range procs {
		var ps []string
		for _, a := range f.Args {
			ps = append(ps, a.Name+" => "+a.Type)
		}
		names = append(names, f.Schema+"."+f.Name+"("+strings.Join(ps, ", ")+")")
	}
	return errAmbiguousFunction(names)
}

// funcNotFound is PGRST202 with PostgREST's message, details and hint (the closest function
// name, or the closest parameter list of the function's overloads).
func funcNotFound(sc *Schema, schema, name string, keys []string, kind bodyKind, post bool, procs []*Func) *Error {
	fn := schema + "." + name
	onlyBody := post && (kind == bodyText || kind == bodyXML || kind == bodyBytes)
	prms := " without parameters"
	if len(keys) > 0 {
		prms = "(" + strings.Join(keys, ", ") + ")"
	}
	named := prms
	if onlyBody {
		named = ""
	}
	det := " without parameters"
	if len(keys) == 1 {
		det = " with parameter " + keys[0]
	} else if len(keys) > 1 {
		det = " with parameters " + strings.Join(keys, ", ")
	}
	switch {
	case post && kind == bodyText:
		det = " with a single unnamed text parameter"
	case post && kind == bodyXML:
		det = " with a single unnamed xml parameter"
	case post && kind == bodyBytes:
		det = " with a single unnamed bytea parameter"
	case post:
		det += " or with a single unnamed json/jsonb parameter"
	}
	details := "Searched for the function " + fn + det + ", but no matches were found in the schema cache."
	if onlyBody {
		return errNoFunction(schema, name, named, details, "")
	}
	if len(procs) == 0 {
		var names []string
		for k := range sc.Overloads {
			if s, n, _ := strings.Cut(k, "."); s == schema {
				names = append(names, n)
			}
		}
		hint := ""
		if best, ok := fuzzyBest(names, name, 0.75); ok {
			hint = "Perhaps you meant to call the function " + schema + "." + best
		}
		return errNoFunction(schema, name, named, details, hint)
	}
	var lists []string
	for _, f := range procs {
		var ps []string
		for _, a := range f.Args {
			ps = append(ps, a.Name)
		}
		slices.Sort(ps)
		lists = append(lists, "("+strings.Join(ps, ", ")+")")
	}
	hint := ""
	if best, ok := fuzzyBest(lists, "("+strings.Join(keys, ", ")+")", 0.33); ok {
		hint = "Perhaps you meant to call the function " + schema + "." + name + best
	}
	return errNoFunction(schema, name, named, details, hint)
}

// fuzzyBest is the candidate most like q (PostgREST's fuzzy-set hints: candidates sharing
// a two- or three-letter gram with q, scored 1 - edit distance / longer length), if it
// scores at least min.
func fuzzyBest(cands []string, q string, min float64) (string, bool) {
	ql := strings.ToLower(q)
	grams := func(s string, n int) map[string]bool {
		s = "-" + s + "-"
		out := map[string]bool{}
		for i := 0; i+n <= len(s); i++ {
			out[s[i:i+n]] = true
		}
		return out
	}
	shares := func(c string) bool {
		for _, n := range []int{3, 2} {
			g := grams(ql, n)
			for k := range grams(strings.ToLower(c), n) {
				if g[k] {
					return true
				}
			}
		}
		return false
	}
	best, score := "", -1.0
	sorted := slices.Clone(cands)
	slices.Sort(sorted)
	for _, c := range sorted {
		if !shares(c) {
			continue
		}
		cl := strings.ToLower(c)
		l := max(len([]rune(cl)), len([]rune(ql)))
		sc := 1 - float64(levenshtein(cl, ql))/float64(max(l, 1))
		if sc > score {
			best, score = c, sc
		}
	}
	return best, score >= min
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
