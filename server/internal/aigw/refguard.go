package aigw

import (
	"crypto/sha256"
	"maps"
	"sync"
)

// refGuards keeps, per case reference, what guarding a grade against it needs that does
// not depend on the student's text: the reference's shingles less those of the public
// texts (redactor) and the stems of its sentences and of the public texts (leakCheck).
// Building them tokenised and normalised every word of the reference, the case, its
// articles and hints for each graded solution: about 5 % of the server's CPU at 600
// students. The key is a hash of the texts themselves, so an edited case or reference
// gets new guards and nothing stale is served; the map is bounded (refGuardsMax, then
// emptied), a cache of derived values an instance may lose at any time.
type refGuards struct {
	mu sync.Mutex
	m  map[[sha256.Size]byte]*refGuard
}

type refGuard struct {
	red  *redactor  // read-only: clone before without
	leak *leakCheck // read-only: student stems are set on a copy
}

const refGuardsMax = 1024

func (g *refGuards) get(secret, public []string) *refGuard {
	h := sha256.New()
	for _, part := range [][]string{secret, public} {
		for _, s := range part {
			h.Write([]byte(s))
			h.Write([]byte{0})
		}
		h.Write([]byte{1})
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	g.mu.Lock()
	defer g.mu.Unlock()
	if rg, ok := g.m[key]; ok {
		return rg
	}
	rg := &refGuard{red: newRedactor(secret...).without(public...), leak: newLeakCheck(secret, "", public...)}
	if g.m == nil || len(g.m) >= refGuardsMax {
		g.m = map[[sha256.Size]byte]*refGuard{}
	}
	g.m[key] = rg
	return rg
}

// forStudent returns the guards for one solution: the reference's shingles less the
// student's own words (quoting oneself is no leak), and the student's stems.
func (rg *refGuard) forStudent(text string) (*redactor, *leakCheck) {
	red := &redactor{ids: rg.red.ids, grams: maps.Clone(rg.red.grams), sentences: maps.Clone(rg.red.sentences)}
	leak := *rg.leak
	leak.student = stems(text)
	return red.without(text), &leak
}
