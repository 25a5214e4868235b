package postgrest

import (
	"fmt"
	"net/url"
	"strings"
)

// Bounds on what one query string may ask for, checked in one linear pass before
// parsing: the parser and PostgreSQL both spend more than linear time on deep nesting
// (a 300 KB select=x(x(x(…))) cost the parser 22 s of CPU, 20 nested embeds took
// PostgreSQL seconds to parse and plan, an or= nested 10,000 deep exhausted its parser's
// memory), and a 70,000-step JSON path needed more parameters than the protocol carries.
// The app's deepest request embeds one level.
const (
	maxQueryBytes = 16 << 10 // the raw (encoded) query string
	maxEmbedDepth = 8        // select=a(b(c(…)))
	maxEmbeds     = 32       // embedded resources in one request
	maxLogicDepth = 16       // or=(and(or(…))), in-lists included
	maxJSONSteps  = 16       // col->a->b->>c
	// Columns a select= may name, embeds included: PostgreSQL refuses target lists over
	// 1,664 entries with 54011, a 500 in PostgREST's table; the statement adds its own.
	maxSelectColumns = 1000
)

// checkLimits answers a PostgREST-shaped 400 (PGRST100, as for a parse error) when the
// query string exceeds one of the bounds.
func checkLimits(rawQuery string, v url.Values) error {
	if len(rawQuery) > maxQueryBytes {
		return defQueryParam.new(fmt.Sprintf("The query string has %d bytes; at most %d are allowed", len(rawQuery), maxQueryBytes),
			"Send fewer or shorter parameters.", "failed to parse query string")
	}
	embeds, columns := 0, 0
	for key, vals := range v {
		if err := checkJSONSteps(key); err != nil {
			return err
		}
		_, last := splitPath(key)
		for _, val := range vals {
			switch last {
			case "select", "order", "or", "and", "not.or", "not.and":
				// Values that hold column expressions (a filter's value is a parameter).
				if err := checkJSONSteps(val); err != nil {
					return err
				}
			}
			switch last {
			case "select":
				depth, n := nesting(val)
				if depth > maxEmbedDepth {
					return limitErr("select", fmt.Sprintf("Embedded resources are nested %d levels deep; at most %d are allowed", depth, maxEmbedDepth))
				}
				if embeds += n; embeds > maxEmbeds {
					return limitErr("select", fmt.Sprintf("More than %d embedded resources were requested", maxEmbeds))
				}
				if columns += selectItems(val); columns > maxSelectColumns {
					return limitErr("select", fmt.Sprintf("More than %d columns were requested", maxSelectColumns))
				}
			case "or", "and", "not.or", "not.and":
				if depth, _ := nesting(val); depth > maxLogicDepth {
					return limitErr("logic tree", fmt.Sprintf("The parameter %q is nested %d levels deep; at most %d are allowed", key, depth, maxLogicDepth))
				}
			}
		}
	}
	return nil
}

func limitErr(what, details string) *Error {
	return errQueryParam("failed to parse "+what+" parameter", details)
}

// nesting is the deepest parenthesis level of s outside double quotes, and how many
// opening parentheses start an embed (those not immediately closed, as count() is).
func nesting(s string) (depth, opened int) {
	level, quoted := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '(':
			level++
			depth = max(depth, level)
			if i+1 >= len(s) || s[i+1] != ')' {
				opened++
			}
		case c == ')':
			level--
		}
	}
	return depth, opened
}

// checkJSONSteps bounds the arrows of each column expression in s (expressions end at
// a comma or a parenthesis).
func checkJSONSteps(s string) error {
	if !strings.Contains(s, "->") {
		return nil
	}
	steps := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ',', '(', ')':
			steps = 0
		case '-':
			if i+1 < len(s) && s[i+1] == '>' {
				if steps++; steps > maxJSONSteps {
					return errQueryParam("failed to parse json path", fmt.Sprintf("A JSON path has more than %d steps", maxJSONSteps))
				}
			}
		}
	}
	return nil
}

// selectItems counts the items of a select= value, embedded ones included: its commas and
// opening parentheses outside double quotes, plus one.
func selectItems(s string) int {
	n, quoted := 1, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == ',' || c == '(':
			n++
		}
	}
	return n
}
