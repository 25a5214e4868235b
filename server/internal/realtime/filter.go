package realtime

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// changeFilter is a postgres_changes filter "column=op.value" as realtime-js writes it.
type changeFilter struct {
	column string
	op     string
	values []string // one value, or several for "in"
}

var filterOps = map[string]bool{"eq": true, "neq": true, "lt": true, "lte": true, "gt": true, "gte": true, "in": true}

func parseFilter(s string) (*changeFilter, error) {
	if s == "" {
		return nil, nil
	}
	col, rest, ok := strings.Cut(s, "=")
	if !ok || col == "" {
		return nil, fmt.Errorf("invalid filter %q", s)
	}
	op, val, ok := strings.Cut(rest, ".")
	if !ok || !filterOps[op] {
		return nil, fmt.Errorf("invalid filter operator in %q (eq, neq, lt, lte, gt, gte, in)", s)
	}
	f := &changeFilter{column: col, op: op}
	if op == "in" {
		val = strings.TrimSuffix(strings.TrimPrefix(val, "("), ")")
		for _, v := range strings.Split(val, ",") {
			f.values = append(f.values, strings.Trim(strings.TrimSpace(v), `"`))
		}
	} else {
		f.values = []string{val}
	}
	return f, nil
}

// matches evaluates the filter against a row as JSON values. Numbers compare
// numerically, everything else as text, as the column's value prints.
func (f *changeFilter) matches(row map[string]json.RawMessage) bool {
	if f == nil {
		return true
	}
	raw, ok := row[f.column]
	if !ok {
		return false
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil || v == nil {
		return false
	}
	switch f.op {
	case "eq":
		return compare(v, f.values[0]) == 0
	case "neq":
		return compare(v, f.values[0]) != 0
	case "lt":
		return compare(v, f.values[0]) < 0
	case "lte":
		return compare(v, f.values[0]) <= 0
	case "gt":
		return compare(v, f.values[0]) > 0
	case "gte":
		return compare(v, f.values[0]) >= 0
	case "in":
		for _, want := range f.values {
			if compare(v, want) == 0 {
				return true
			}
		}
	}
	return false
}

func compare(v any, want string) int {
	if n, ok := v.(float64); ok {
		w, err := strconv.ParseFloat(want, 64)
		if err == nil {
			switch {
			case n < w:
				return -1
			case n > w:
				return 1
			}
			return 0
		}
	}
	s := fmt.Sprint(v)
	if b, ok := v.(bool); ok {
		s = strconv.FormatBool(b)
	}
	return strings.Compare(s, want)
}
