package lawcodes

import (
	"fmt"
	"regexp"
	"strings"
)

// A citation in prose: "art. 1357", "art. 1357 alin. (1) lit. a) C.civ.", "art. 112^1 C.pen.",
// "art. 41–48" (both ends count). The suffix names the code; without one the code is the
// case's own domain. A suffix naming an act that is not shipped is an error: students could
// not read it.
var (
	citeRe = regexp.MustCompile(`(?i)\bart(?:icolul|\.)\s*(\d+)(?:\s*\^\s*(\d+))?` +
		`((?:\s*(?:alin\.|lit\.|pct\.|teza|tz\.)\s*\(?[0-9a-z]+\)?)*)` +
		`(?:\s*[–-]\s*(\d+)(?:\s*\^\s*(\d+))?)?` +
		`(\s*(?:C\.\s?civ\.|C\.\s?pen\.|Const\.|din Constituți[ae]|C\.\s?proc\.|din Legea|din Codul|din O\.?U\.?G|din O\.?G\.|din Regulament|din Decretul|din H\.?G))?`)
)

// namedActRe names the acts that are not shipped but that a text may rely on by article,
// written out in full so that the student knows where to read it (#29): the codes of
// procedure, the law of the Constitutional Court, the contraventions ordinance and the
// administrative-litigation law. Such a citation is not linked, needs no listing and is
// no error.
var namedActRe = regexp.MustCompile(`^\s*(C\.\s?proc\.\s?(pen|civ)\.|din Legea nr\. (47/1992|554/2004)|din O\.G\. nr\. 2/2001)`)

// Citation is one article a text relies on.
type Citation struct{ Code, Number string }

// Citations lists the articles cited in text, the code defaulting to domain. Errors name
// citations of acts that are not shipped.
func Citations(text, domain string) ([]Citation, []string) {
	var out []Citation
	var errs []string
	for _, ix := range citeRe.FindAllStringSubmatchIndex(text, -1) {
		m := make([]string, len(ix)/2)
		for i := range m {
			if ix[2*i] >= 0 {
				m[i] = text[ix[2*i]:ix[2*i+1]]
			}
		}
		code := domain
		suffix := strings.TrimSpace(m[6])
		switch s := strings.ToLower(strings.ReplaceAll(suffix, " ", "")); {
		case ix[12] >= 0 && namedActRe.MatchString(text[ix[12]:]):
			continue // a provision of a named act that is not shipped: said, not linked
		case s == "":
		case s == "c.civ.":
			code = "civil"
		case s == "c.pen.":
			code = "penal"
		case s == "const." || strings.HasPrefix(s, "dinconstituți"):
			code = "constitutional"
		default:
			errs = append(errs, fmt.Sprintf("%q cites an act that is not shipped", strings.TrimSpace(m[0])))
			continue
		}
		num := m[1]
		if m[2] != "" {
			num += "^" + m[2]
		}
		out = append(out, Citation{code, num})
		if m[4] != "" {
			end := m[4]
			if m[5] != "" {
				end += "^" + m[5]
			}
			out = append(out, Citation{code, end})
		}
	}
	return out, errs
}

// CitationSpans are the byte spans of the citations in text, in order.
func CitationSpans(text string) [][]int { return citeRe.FindAllStringIndex(text, -1) }
