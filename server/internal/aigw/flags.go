package aigw

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
)

// Moderator flags (public.submission_flags, sql/app 028): the gateway grades a text the
// authorship check is unsure about, or one that looks like an attempt on the grader, and
// leaves a flag for a human instead of blocking the student (grader-review-3 §3.5, §6
// items 2 and 7). Only the server writes flags; moderators read and resolve them.

// The reasons, as the table's check constraint names them.
const (
	flagAuthorship = "authorship_uncertain"
	flagScoreLines = "score_lines_removed"
	flagHighShort  = "high_score_short_text"
	flagAddressed  = "addresses_grader"
)

// A high grade on a short text is worth a look: highScore or more on fewer than
// shortWords words.
const (
	highScore  = 90
	shortWords = 250
)

// Bounds of what a flag keeps: quotes (the table allows 20) and their length.
const (
	maxEvidence     = 10
	maxEvidenceRune = 300
)

// flag is one reason to show a submission to a moderator: quotes from the student's
// text, and the server's one-line account where a quote says nothing.
type flag struct {
	Reason   string   `json:"-"`
	Evidence []string `json:"evidence"`
	Detail   string   `json:"detail,omitempty"`
}

// gradeFlags are the flags a grade raises: score-shaped lines replaced in the grader's
// copy of the text (removed, from scoreShapedLines), a text that addresses the grader,
// and a grade of highScore or more on a text under shortWords words.
func gradeFlags(text string, removed []string, total int) []flag {
	var out []flag
	if len(removed) > 0 {
		out = append(out, flag{Reason: flagScoreLines, Evidence: evidence(removed),
			Detail: "Rândurile citate au fost înlocuite în textul trimis corectorului."})
	}
	if asksTheGrader(text) {
		out = append(out, flag{Reason: flagAddressed, Evidence: evidence(graderSentences(text)),
			Detail: "Comentariile corectorului au fost omise din evaluarea primită de student."})
	}
	if n := wordCount(text); total >= highScore && n < shortWords {
		out = append(out, flag{Reason: flagHighShort, Detail: fmt.Sprintf("%d/100 pentru un text de %s.", total, cuvinte(n))})
	}
	return out
}

// graderSentences are the sentences (or lines) of the text that address the grader.
func graderSentences(text string) []string {
	var out []string
	for _, s := range sentences(text) {
		if asksTheGrader(s) {
			out = append(out, s)
		}
	}
	return out
}

// evidence trims quotes to what a flag keeps.
func evidence(quotes []string) []string {
	out := []string{}
	for _, q := range quotes {
		q = strings.TrimSpace(q)
		if q == "" {
			continue
		}
		if len(out) == maxEvidence {
			break
		}
		if utf8.RuneCountInString(q) > maxEvidenceRune {
			q = string([]rune(q)[:maxEvidenceRune]) + "…"
		}
		out = append(out, q)
	}
	return out
}

// wordCount counts the text's words as a reader does: runs between spaces that hold a
// letter or a digit ("art. 1357 C.civ." is three).
func wordCount(text string) int {
	n := 0
	for _, f := range strings.Fields(text) {
		if strings.IndexFunc(f, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			n++
		}
	}
	return n
}

// cuvinte is "n cuvinte" in Romanian: "un cuvânt", "19 cuvinte", "20 de cuvinte",
// "101 cuvinte".
func cuvinte(n int) string {
	switch r := n % 100; {
	case n == 1:
		return "un cuvânt"
	case n == 0 || (r >= 1 && r <= 19):
		return fmt.Sprintf("%d cuvinte", n)
	default:
		return fmt.Sprintf("%d de cuvinte", n)
	}
}

// recordFlags stores a submission's flags, in the transaction that records the verdict or
// the grade; a reason already flagged on it is kept as is.
func recordFlags(ctx context.Context, tx pgx.Tx, id string, flags []flag) error {
	for _, f := range flags {
		if _, err := tx.Exec(ctx, `insert into public.submission_flags (submission_id, reason, evidence, detail)
			values ($1::uuid, $2, coalesce($3::text[], '{}'), nullif($4, '')) on conflict (submission_id, reason) do nothing`,
			id, f.Reason, f.Evidence, f.Detail); err != nil {
			return err
		}
	}
	return nil
}
