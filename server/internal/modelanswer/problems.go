// Package modelanswer reads the legal problems a model answer announces. It is the one
// reader shared by the grader (which weighs the problems) and the seed checks (which
// require the announcement), so the two cannot disagree about a case's problems.
package modelanswer

import (
	"regexp"
	"strconv"
	"strings"
)

// List is the announcement of a model answer's legal problems.
type List struct {
	// Problems are the announced questions, in order.
	Problems []string
	// Line: announced on a line of its own, as sql/seed/cases/FORMAT.md asks
	// ("Problemele juridice: (1) … (2) …" or "Problema juridică: …"). Otherwise the
	// announcement closes a paragraph, as the case generator writes it ("Introducere. …
	// Problemele: (1) …; (2) …" or "Problema: …").
	Line bool
	// Plural: "Problemele…"/"Probleme…" announced a list, "Problema…" one problem.
	Plural bool
}

var (
	// The curriculum's form, anchored at the start of a line.
	lineRe = regexp.MustCompile(`(?m)^[ \t]*(Problemele juridice|Problema juridică)[ \t]*:[ \t]*(.*)$`)
	// The generator's (and older) forms anywhere in the text: "Problemele: …",
	// "Probleme: …", "Problema: …", also with "juridice"/"juridică". "Problema 1:" (a
	// block title) is not an announcement.
	inlineRe   = regexp.MustCompile(`(?s)\b(Problem(?:ele|e|a))(?:[ \t]+juridic(?:e|ă))?[ \t]*:[ \t]*(.+?)(?:\n|\z)`)
	numberedRe = regexp.MustCompile(`\((\d+)\)`)
)

// Parse finds the announcement; ok is false when the answer announces no problem.
func Parse(answer string) (l List, ok bool) {
	var kind, stated string
	if m := lineRe.FindStringSubmatch(answer); m != nil {
		kind, stated, l.Line = m[1], m[2], true
	} else if m := inlineRe.FindStringSubmatch(answer); m != nil {
		kind, stated = m[1], m[2]
	} else {
		return l, false
	}
	l.Plural = !strings.HasPrefix(kind, "Problema")
	stated = strings.TrimSpace(stated)
	switch parts := numbered(stated); {
	case len(parts) > 0:
		l.Problems = parts
	case !l.Plural:
		l.Problems = []string{strings.TrimRight(stated, ".")}
	default:
		// "Probleme: a, b și c" — a list without numbers.
		stated = strings.TrimRight(stated, ".")
		if i := strings.LastIndex(stated, " și "); i >= 0 {
			stated = stated[:i] + ", " + stated[i+len(" și "):]
		}
		for _, p := range strings.Split(stated, ",") {
			if p = strings.TrimSpace(p); p != "" {
				l.Problems = append(l.Problems, p)
			}
		}
	}
	if len(l.Problems) == 0 || l.Problems[0] == "" {
		return l, false
	}
	return l, true
}

// numbered splits "(1) a; (2) b" at the markers numbered 1, 2, 3… in turn, so an
// "alin. (2)" inside a problem is not taken for a marker.
func numbered(s string) []string {
	var cuts [][2]int
	next := 1
	for _, m := range numberedRe.FindAllStringSubmatchIndex(s, -1) {
		before := strings.TrimSpace(s[:m[0]])
		if s[m[2]:m[3]] == strconv.Itoa(next) && !strings.HasSuffix(before, "alin.") && !strings.HasSuffix(before, "lit.") {
			cuts = append(cuts, [2]int{m[0], m[1]})
			next++
		}
	}
	var out []string
	for i, c := range cuts {
		end := len(s)
		if i+1 < len(cuts) {
			end = cuts[i+1][0]
		}
		if p := strings.Trim(strings.TrimSpace(s[c[1]:end]), ";,."); p != "" {
			out = append(out, p)
		}
	}
	return out
}
