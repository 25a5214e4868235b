package postgrest

import (
	"cmp"
	"slices"
	"strings"
)

// Cardinalities as PostgREST names them in PGRST201, in its sort order.
const (
	cardO2M = iota
	cardM2O
	cardO2O
	cardM2M
	cardComputed
)

var cardNames = map[int]string{cardO2M: "one-to-many", cardM2O: "many-to-one", cardO2O: "one-to-one", cardM2M: "many-to-many"}

// relCandidate is one relationship of a relation, as PostgREST's schema cache lists them.
type relCandidate struct {
	card   int
	parent *Relation
	target *Relation
	// fk: the key (parent→target for many-to-one and the key side of one-to-one;
	// target→parent for one-to-many and the referenced side of one-to-one; junction→parent
	// for many-to-many, with jTarget junction→target).
	fk       *FK
	jTarget  *FK
	junction *Relation
	// toOne: the parent holds the key (many-to-one, or one-to-one from the key's side).
	toOne    bool
	computed *ComputedRel
}

func (c *relCandidate) self() bool { return c.parent == c.target }

// cols are PostgREST's relColumns: pairs (parent column, target column) of a direct key.
func (c *relCandidate) cols() [][2]string {
	var out [][2]string
	for i := range c.fk.FromCols {
		if c.toOne {
			out = append(out, [2]string{c.fk.FromCols[i], c.fk.ToCols[i]})
		} else {
			out = append(out, [2]string{c.fk.ToCols[i], c.fk.FromCols[i]})
		}
	}
	return out
}

func (c *relCandidate) consName() string {
	if c.junction != nil {
		return c.junction.Name
	}
	if c.computed != nil {
		return c.computed.Name
	}
	return c.fk.Name
}

// relationshipsOf lists every relationship of parent, sorted as PostgREST sorts them
// (from the list made when the cache was loaded, when there is one).
func relationshipsOf(sc *Schema, parent *Relation) []*relCandidate {
	if sc.rels != nil {
		return sc.rels[parent]
	}
	return listRelationships(sc, parent)
}

func listRelationships(sc *Schema, parent *Relation) []*relCandidate {
	var out []*relCandidate
	for _, fk := range parent.FKs {
		card := cardM2O
		if fk.OneToOne {
			card = cardO2O
		}
		out = append(out, &relCandidate{card: card, parent: parent, target: fk.To, fk: fk, toOne: true})
	}
	rels := sortedRelations(sc)
	for _, r := range rels {
		for _, fk := range r.FKs {
			if fk.To != parent {
				continue
			}
			card := cardO2M
			if fk.OneToOne {
				card = cardO2O
			}
			out = append(out, &relCandidate{card: card, parent: parent, target: r, fk: fk})
		}
	}
	for _, j := range rels {
		pk := map[string]bool{}
		for _, c := range j.PK {
			pk[c] = true
		}
		for _, a := range j.FKs {
			if a.To != parent || !allIn(a.FromCols, pk) {
				continue
			}
			for _, c := range j.FKs {
				if c.Name == a.Name || !allIn(c.FromCols, pk) {
					continue
				}
				out = append(out, &relCandidate{card: cardM2M, parent: parent, target: c.To, fk: a, jTarget: c, junction: j})
			}
		}
	}
	for _, cr := range parent.ComputedRels {
		out = append(out, &relCandidate{card: cardComputed, parent: parent, target: cr.To, computed: cr, toOne: cr.Single})
	}
	slices.SortStableFunc(out, func(a, b *relCandidate) int {
		return cmp.Or(
			cmp.Compare(a.target.Schema, b.target.Schema), cmp.Compare(a.target.Name, b.target.Name),
			cmp.Compare(a.card, b.card), cmp.Compare(a.consName(), b.consName()))
	})
	return out
}

func allIn(cols []string, set map[string]bool) bool {
	for _, c := range cols {
		if !set[c] {
			return false
		}
	}
	return len(cols) > 0
}

// matchEmbed applies PostgREST's rules for which relationships an embed target[!hint]
// names: the target table or view (a constraint or a key column naming a table's
// relationship), the hint a constraint, a key column or a junction; on a self-reference
// the table's name is the children and the key column the parent; a computed
// relationship by its function's name.
func matchEmbed(c *relCandidate, target, hint string) bool {
	if c.computed != nil {
		return target == c.computed.Name
	}
	single := func(pick int) (string, bool) {
		if c.junction != nil || len(c.fk.FromCols) != 1 {
			return "", false
		}
		return c.cols()[0][pick], true
	}
	matchCol := func(h string) bool { col, ok := single(0); return ok && col == h }
	matchRefCol := func(h string) bool { col, ok := single(1); return ok && col == h }
	matchCons := func(h string) bool { return c.junction == nil && c.fk.Name == h }
	if c.self() {
		if hint == "" {
			return (target == c.target.Name && c.card == cardO2M) || (matchCol(target) && c.card == cardM2O)
		}
		return target == c.target.Name && c.card == cardO2M && matchRefCol(hint)
	}
	if hint == "" {
		return target == c.target.Name ||
			(matchCons(target) && !c.target.IsView) ||
			(matchCol(target) && !c.target.IsView)
	}
	return target == c.target.Name &&
		(matchCons(hint) || matchCol(hint) || matchRefCol(hint) || (c.junction != nil && c.junction.Name == hint))
}

// resolveEmbed finds the one relationship an embed names from parent, or answers
// PGRST200 (none) or PGRST201 (several) as PostgREST writes them.
func resolveEmbed(sc *Schema, parent *Relation, e *Embed) (*relationship, error) {
	all := relationshipsOf(sc, parent)
	var found []*relCandidate
	for _, c := range all {
		if matchEmbed(c, e.Relation, e.Hint) {
			found = append(found, c)
		}
	}
	switch len(found) {
	case 0:
		return nil, noRelationship(sc, parent, e, all)
	case 1:
		return found[0].relationship(), nil
	}
	var det []map[string]string
	var hints []string
	for _, c := range found {
		det = append(det, c.describe())
		hints = append(hints, "'"+c.target.Name+"!"+c.consName()+"'")
	}
	return nil, errAmbiguousRelationship(parent.Name, e.Relation, det, hints)
}

// describe is PostgREST's entry for a relationship in PGRST201's details.
func (c *relCandidate) describe() map[string]string {
	d := map[string]string{"embedding": c.parent.Name + " with " + c.target.Name}
	if c.computed != nil {
		return map[string]string{}
	}
	if c.junction != nil {
		d["cardinality"] = cardNames[cardM2M]
		d["relationship"] = c.junction.Name + " using " + c.fk.Name + "(" + strings.Join(c.fk.FromCols, ", ") + ") and " +
			c.jTarget.Name + "(" + strings.Join(c.jTarget.FromCols, ", ") + ")"
		return d
	}
	d["cardinality"] = cardNames[c.card]
	var pc, tc []string
	for _, p := range c.cols() {
		pc, tc = append(pc, p[0]), append(tc, p[1])
	}
	d["relationship"] = c.fk.Name + " using " + c.parent.Name + "(" + strings.Join(pc, ", ") + ") and " + c.target.Name + "(" + strings.Join(tc, ", ") + ")"
	return d
}

// noRelationship is PGRST200; its hint suggests the closest embeddable name (or, when the
// parent has no relationships at all, the closest relation that has some).
func noRelationship(sc *Schema, parent *Relation, e *Embed, all []*relCandidate) *Error {
	det := "Searched for a foreign key relationship between '" + parent.Name + "' and '" + e.Relation
	if e.Hint != "" {
		det += "' using the hint '" + e.Hint
	}
	det += "' in the schema '" + parent.Schema + "', but no matches were found."
	if len(all) > 0 {
		var names []string
		for _, c := range all {
			if c.target.Name == e.Relation {
				// The target exists: the hint is what is wrong.
				return errNoRelationship(parent.Name, e.Relation, det, "")
			}
			names = append(names, c.target.Name)
		}
		hint := ""
		if best, ok := fuzzyBest(names, e.Relation, 0.33); ok {
			hint = "Perhaps you meant '" + best + "' instead of '" + e.Relation + "'."
		}
		return errNoRelationship(parent.Name, e.Relation, det, hint)
	}
	var parents []string
	for _, r := range sortedRelations(sc) {
		if r.Schema == parent.Schema && len(relationshipsOf(sc, r)) > 0 {
			parents = append(parents, r.Name)
		}
	}
	hint := ""
	if best, ok := fuzzyBest(parents, parent.Name, 0.33); ok {
		hint = "Perhaps you meant '" + best + "' instead of '" + parent.Name + "'."
	}
	return errNoRelationship(parent.Name, e.Relation, det, hint)
}

// relationship is the candidate as the statement builder joins it.
func (c *relCandidate) relationship() *relationship {
	switch {
	case c.computed != nil:
		return &relationship{target: c.target, toOne: c.computed.Single, computed: c.computed}
	case c.junction != nil:
		return &relationship{target: c.target, junction: c.junction, jParent: c.fk, jTarget: c.jTarget}
	case c.toOne:
		return &relationship{target: c.target, toOne: true, fk: c.fk}
	}
	return &relationship{target: c.target, fk: c.fk, oneToOne: c.card == cardO2O}
}
