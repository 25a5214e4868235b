// Package lawcodes parses the shipped legal texts into articles and parses article
// references such as "Art. 1357 alin. (1) C.civ." back to (code, number).
package lawcodes

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"

	"casus/codes"
)

// Code describes one legal text.
type Code struct {
	ID     string // civil | penal | constitutional — also the domain the code serves
	File   string // file name under codes/
	Label  string // tab label in the viewer
	Abbrev string // suffix of article references
}

// Codes lists the shipped texts in the viewer's tab order.
var Codes = []Code{
	{ID: "civil", File: "codul_civil.txt", Label: "Codul Civil", Abbrev: "C.civ."},
	{ID: "constitutional", File: "constitutia.txt", Label: "Constituția României", Abbrev: "Const."},
	{ID: "penal", File: "codul_penal.txt", Label: "Codul Penal", Abbrev: "C.pen."},
}

// ByID returns the code with the id.
func ByID(id string) (Code, bool) {
	for _, c := range Codes {
		if c.ID == id {
			return c, true
		}
	}
	return Code{}, false
}

// Article is one article of a code.
type Article struct {
	Code     string
	Number   string // "1357", "2029^1"
	Major    int    // 2029
	Minor    int    // 1 for 2029^1, 0 otherwise
	Title    string // marginal title; "" when the source has none
	Body     string // the paragraphs, newline-separated
	Position int    // 1-based order in the code
	Headings []string
}

var (
	articleRe = regexp.MustCompile(`^(?:Art\.|Articolul) (\d+)(?:\^(\d+))?$`)
	headingRe = regexp.MustCompile(`^(Partea|Cartea|Titlul|Capitolul|Secțiunea) (PRELIMINAR|GENERALĂ|SPECIALĂ|[IVXLC]+|a [IVXLC]+-a|\d+|a \d+-a)( - .*)?$`)
	paraStart = regexp.MustCompile(`^(\(\d+(\^\d+)?\)|[a-z](\^\d+)?\)|\d+\.)`)
	// Lowest-level subdivisions ("I. Constituirea ipotecii") stand on their own line
	// inside sections of the Civil Code; paragraphs never start with a Roman numeral.
	subdivRe = regexp.MustCompile(`^[IVXL]+\. \p{Lu}`)
)

var headingLevel = map[string]int{"Partea": 0, "Cartea": 1, "Titlul": 2, "Capitolul": 3, "Secțiunea": 4}

// unnumberedDivisions are divisions the source names without a kind or number, at the
// level of the given kind: the Civil Code closes with "Dispoziții finale" (art. 2664) after
// Cartea a VII-a.
var unnumberedDivisions = map[string]string{"Dispoziții finale": "Cartea"}

const subdivLevel = 5

// Load parses one shipped code.
func Load(c Code) ([]Article, error) {
	b, err := fs.ReadFile(codes.Texts, c.File)
	if err != nil {
		return nil, err
	}
	return Parse(c.ID, b)
}

// Parse splits a code text into articles, tracking the heading path of each.
func Parse(codeID string, text []byte) ([]Article, error) {
	var (
		out       []Article
		cur       *Article
		body      []string
		path      [6]string
		prevBlank = true
		lineNo    int
		wantTitle bool
	)
	flush := func() {
		if cur != nil {
			cur.Body = strings.TrimSpace(strings.Join(body, "\n"))
			out = append(out, *cur)
		}
		cur, body = nil, nil
	}
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		lineNo++
		line := strings.TrimRight(sc.Text(), " \r")
		if lineNo == 1 {
			continue // title line of the act
		}
		if line == "" {
			prevBlank = true
			continue
		}
		if prevBlank {
			kind, isDivision := unnumberedDivisions[line]
			if m := headingRe.FindStringSubmatch(line); m != nil {
				kind, isDivision = m[1], true
			}
			if isDivision {
				flush()
				lvl := headingLevel[kind]
				path[lvl] = line
				for i := lvl + 1; i < len(path); i++ {
					path[i] = ""
				}
				prevBlank = false
				continue
			}
		}
		prevBlank = false
		if subdivRe.MatchString(line) {
			flush()
			path[subdivLevel] = line
			continue
		}
		if m := articleRe.FindStringSubmatch(line); m != nil {
			flush()
			major, _ := strconv.Atoi(m[1])
			minor := 0
			num := m[1]
			if m[2] != "" {
				minor, _ = strconv.Atoi(m[2])
				num += "^" + m[2]
			}
			var hp []string
			for _, h := range path {
				if h != "" {
					hp = append(hp, h)
				}
			}
			cur = &Article{Code: codeID, Number: num, Major: major, Minor: minor, Position: len(out) + 1, Headings: hp}
			wantTitle = true
			continue
		}
		if cur == nil {
			return nil, fmt.Errorf("%s line %d: text before the first article: %q", codeID, lineNo, line)
		}
		if wantTitle {
			wantTitle = false
			if !paraStart.MatchString(line) && !strings.HasSuffix(line, ".") && !strings.HasSuffix(line, ";") && !strings.HasSuffix(line, ":") {
				cur.Title = line
				continue
			}
		}
		body = append(body, line)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	flush()
	return out, nil
}

// Reference is a parsed article reference.
type Reference struct {
	Code   string // civil | penal | constitutional
	Number string // "1357", "112^1"
	Detail string // " alin. (1) lit. a)" — whatever stood between number and code
}

var refRe = regexp.MustCompile(`^(?i:art\.?|articolul)\s*(\d+)(?:\s*\^\s*(\d+))?(.*?)\s*(C\.\s?civ\.|C\.\s?pen\.|Const\.|Constituți[ae])\s*$`)

// ParseReference reads "Art. 1357 alin. (1) C.civ." style references.
func ParseReference(s string) (Reference, error) {
	m := refRe.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return Reference{}, fmt.Errorf("not an article reference: %q", s)
	}
	r := Reference{Number: m[1], Detail: strings.TrimSpace(m[3])}
	if m[2] != "" {
		r.Number += "^" + m[2]
	}
	switch abbr := strings.ReplaceAll(m[4], " ", ""); {
	case strings.EqualFold(abbr, "C.civ."):
		r.Code = "civil"
	case strings.EqualFold(abbr, "C.pen."):
		r.Code = "penal"
	default:
		r.Code = "constitutional"
	}
	return r, nil
}

// FormatReference writes the reference the way the product shows it.
func FormatReference(codeID, number string) string {
	c, _ := ByID(codeID)
	return "Art. " + number + " " + c.Abbrev
}
