package realtime

import "casus/server/internal/postgrest/operator"

// subIndex finds, for a change, the local channels whose postgres_changes subscriptions
// could match it, so that a change is not weighed against every subscription. The common
// subscription names one row owner (the app's "user_id=eq.<id>"): under 600 students,
// evaluating each change against every channel's filter (twice: the dry run and the
// delivery, each normalising both uuids) took 30 % of the server's CPU.
//
// A subscription to one table whose filter has a plain eq condition is indexed under that
// condition's column and value, normalised as the filter compares them (equalKey); any
// other (no filter, a wildcard table, only other operators) is scanned for every change.
// The index only narrows: dispatch still checks every condition, privilege and policy.
// Guarded by the Server's mu, like the topics it mirrors.
type subIndex struct {
	// scan counts, per channel, its subscriptions the index cannot narrow.
	scan map[*channel]int
	// eq: (schema, table, column) → equality key → channels (with a count of their
	// subscriptions there).
	eq    map[eqSlot]map[string]map[*channel]int
	kinds map[eqSlot]valueKind
	// tables counts subscriptions per table name; every those to any table.
	tables map[string]int
	every  int
}

type eqSlot struct{ schema, table, column string }

func newSubIndex() *subIndex {
	return &subIndex{scan: map[*channel]int{}, eq: map[eqSlot]map[string]map[*channel]int{}, kinds: map[eqSlot]valueKind{}, tables: map[string]int{}}
}

// indexedBy is where a subscription is indexed: its first plain eq condition, or
// ok=false when it must be scanned.
func indexedBy(sub pgSub) (slot eqSlot, key string, kind valueKind, ok bool) {
	if sub.Table == "" || sub.Table == "*" || sub.Schema == "*" || sub.filter == nil {
		return slot, "", 0, false
	}
	for _, c := range sub.filter.conds {
		if c.op != operator.Eq || c.negate {
			continue
		}
		k, ok := equalKey(c.kind, c.value)
		if !ok {
			continue
		}
		return eqSlot{sub.Schema, sub.Table, c.column}, k, c.kind, true
	}
	return slot, "", 0, false
}

func (x *subIndex) add(ch *channel) {
	for _, sub := range ch.pgSubs {
		x.count(sub, 1)
		slot, key, kind, ok := indexedBy(sub)
		if !ok {
			x.scan[ch]++
			continue
		}
		keys := x.eq[slot]
		if keys == nil {
			keys = map[string]map[*channel]int{}
			x.eq[slot] = keys
			x.kinds[slot] = kind
		}
		if keys[key] == nil {
			keys[key] = map[*channel]int{}
		}
		keys[key][ch]++
	}
}

func (x *subIndex) remove(ch *channel) {
	for _, sub := range ch.pgSubs {
		x.count(sub, -1)
		slot, key, _, ok := indexedBy(sub)
		if !ok {
			if x.scan[ch]--; x.scan[ch] <= 0 {
				delete(x.scan, ch)
			}
			continue
		}
		keys := x.eq[slot]
		if keys == nil || keys[key] == nil {
			continue
		}
		if keys[key][ch]--; keys[key][ch] <= 0 {
			delete(keys[key], ch)
		}
		if len(keys[key]) == 0 {
			delete(keys, key)
		}
		if len(keys) == 0 {
			delete(x.eq, slot)
			delete(x.kinds, slot)
		}
	}
}

func (x *subIndex) count(sub pgSub, n int) {
	if sub.Table == "" || sub.Table == "*" {
		x.every += n
		return
	}
	if x.tables[sub.Table] += n; x.tables[sub.Table] <= 0 {
		delete(x.tables, sub.Table)
	}
}

// candidates lists the channels that may take c: every scanned one, and those indexed
// under a value c's row holds.
func (x *subIndex) candidates(c change) []*channel {
	row := c.Record
	if c.Type == "DELETE" {
		row = c.OldRecord
	}
	seen := make(map[*channel]struct{}, len(x.scan))
	out := make([]*channel, 0, len(x.scan))
	take := func(ch *channel) {
		if _, dup := seen[ch]; !dup {
			seen[ch] = struct{}{}
			out = append(out, ch)
		}
	}
	for ch := range x.scan {
		take(ch)
	}
	for slot, keys := range x.eq {
		if slot.table != c.Table || slot.schema != c.Schema {
			continue
		}
		raw, ok := row[slot.column]
		if !ok {
			continue // a missing column never matches
		}
		v, isNull := sqlText(raw)
		if isNull {
			continue // NULL = x is never true
		}
		key, ok := equalKey(x.kinds[slot], v)
		if !ok {
			// Not in the column's form: the filter would compare the texts. Rare
			// enough to weigh against every channel indexed here.
			for _, chans := range keys {
				for ch := range chans {
					take(ch)
				}
			}
			continue
		}
		for ch := range keys[key] {
			take(ch)
		}
	}
	return out
}

// equalKey is a value's form under which two values are equal exactly when compareAs
// finds them equal (both parsing as the kind); ok=false when it does not parse.
func equalKey(kind valueKind, s string) (string, bool) {
	switch kind {
	case kindNumber:
		r, ok := parseNumber(s)
		if !ok {
			return "", false
		}
		return r.RatString(), true
	case kindBool:
		b, ok := parseBool(s)
		if !ok {
			return "", false
		}
		if b {
			return "t", true
		}
		return "f", true
	case kindTime:
		t, ok := parseTime(s)
		if !ok {
			return "", false
		}
		return t.UTC().Format("2006-01-02T15:04:05.999999999"), true
	case kindUUID:
		return normUUID(s)
	}
	return s, true
}

// tableNames lists the tables subscriptions name; every when one takes any table.
func (x *subIndex) tableNames() (tables []string, every bool) {
	if x.every > 0 {
		return nil, true
	}
	tables = make([]string, 0, len(x.tables))
	for t := range x.tables {
		tables = append(tables, t)
	}
	return tables, false
}
