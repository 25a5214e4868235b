package aigw

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/aigw/prompts"
	"casus/server/internal/lawcodes"
)

// gradeFailed is the answer when no checked grade came out of the model (HTTP 502 in
// Anthropic's shape, the message the student reads); nothing is recorded.
var gradeFailed = &apiError{502, "api_error", prompts.GradeFailed}

// passedSQL is "may this be graded": the database's rule (ai_check_cleared, sql/app 026),
// the spec's pass rule or a moderator's release after an appeal.
const passedSQL = `coalesce(public.ai_check_cleared(ai_decision, ai_probability), false)`

// recordedSQL is what a repeated call answers: the stored grade, or the stored check.
const recordedSQL = `case when status = 'graded' then coalesce(feedback_text, '')
	else json_build_object('probability', ai_probability, 'decision', ai_decision, 'justification', ai_justification)::text end`

// staleClaim is how long a 'grading' claim holds at most: longer than any model call (the
// upstream client gives up after 10 minutes). A claim whose server died is free at once
// (claimHolder).
const staleClaim = 15 * time.Minute

type submissionState struct {
	text, status string
	caseID       string
	checked      bool
	passed       bool
	recorded     string
}

// loadSubmission reads a submission of this user (someone else's is "not found").
func (s *Server) loadSubmission(ctx context.Context, uid, id string) (submissionState, error) {
	var st submissionState
	if id == "" {
		return st, bad("X-Casus-Submission is required")
	}
	if !canonicalUUID(id) {
		return st, &apiError{404, "not_found_error", "Soluția nu există."}
	}
	err := s.d.Owner.QueryRow(ctx, `select submission_text, case_id::text, status, ai_checked_at is not null, `+passedSQL+`, `+recordedSQL+`
		from case_submissions where id = $1::uuid and user_id::text = $2`, id, uid).Scan(&st.text, &st.caseID, &st.status, &st.checked, &st.passed, &st.recorded)
	if errors.Is(err, pgx.ErrNoRows) {
		return st, &apiError{404, "not_found_error", "Soluția nu există."}
	}
	return st, err
}

// detect runs the AI-authorship check once per student, case and text up to trivial
// edits (verdictKey): a verdict already given for the same text is recorded again
// without the model, so an added space cannot re-roll a FAILED. The verdict is written
// only onto the exact text that was judged: the UPDATE compares it, so a text swapped
// while the model was thinking keeps no verdict and needs a check of its own.
func (c *call) detect(id string) error {
	sub, err := c.s.loadSubmission(c.ctx, c.uid, id)
	if err != nil {
		return err
	}
	// One check per text: asking again (an SDK retry, a reload) answers what is
	// recorded without the model, so it cannot turn a failed check into a pass.
	if sub.checked || sub.status != "submitted" {
		writeMessage(c.w, c.model, sub.recorded)
		return nil
	}
	if utf8.RuneCountInString(sub.text) > c.settings.MaxInput {
		return tooLarge(c.settings.MaxInput)
	}
	key := verdictKey(sub.text)
	v, known, err := c.s.storedVerdict(c.ctx, c.uid, sub.caseID, key)
	if err != nil {
		return err
	}
	if !known {
		if err := c.s.reserve(c.ctx, c.uid, c.task); err != nil {
			return err
		}
		cs, err := readCase(c.ctx, c.s.d.Owner, sub.caseID)
		if err != nil {
			return err
		}
		reply, err := c.complete(prompts.Detect(cs), []turn{{"user", prompts.Submission(sub.text)}})
		if err != nil {
			c.markFailed(id)
			return err
		}
		var ok bool
		if v, ok = parseVerdict(reply, sub.text); !ok {
			c.s.d.Log.Error("ai detect", "err", "unparsable verdict")
			c.markFailed(id)
			return &apiError{502, "api_error", "Ne pare rău, a apărut o problemă. Încearcă din nou."}
		}
	}
	var feedback *string
	if v.Decision != "PASSED" {
		// The quoted reasons, no percentage: the recorded probability only says which side
		// of the spec's 30 the verdict is on (grader-review-3 §3.3).
		f := "Verificarea AI: " + v.Justification
		feedback = &f
	}
	tx, err := c.s.d.Owner.Begin(c.ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(c.ctx)) }()
	tag, err := tx.Exec(c.ctx, `update case_submissions set ai_probability = $2, ai_decision = $3, ai_justification = $4,
		ai_checked_at = now(), ai_failed_at = null, feedback_text = coalesce($5, feedback_text)
		where id = $1::uuid and status = 'submitted' and ai_checked_at is null and submission_text = $6`,
		id, v.Probability, v.Decision, v.Justification, feedback, sub.text)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return &apiError{409, "invalid_request_error", "Soluția a fost modificată în timpul verificării. Trimite-o din nou."}
	}
	// The first verdict for this text is the verdict: a concurrent check of the same
	// text by the same student keeps the one already stored.
	if _, err := tx.Exec(c.ctx, `insert into casus_meta.ai_verdicts (user_id, case_id, text_key, probability, decision, justification, doubt)
		values ($1::uuid, $2::uuid, $3, $4, $5, $6, $7) on conflict do nothing`, c.uid, sub.caseID, key, v.Probability, v.Decision, v.Justification, v.Doubt); err != nil {
		return err
	}
	// A text that passes with doubts is graded and shown to a moderator.
	if v.Decision == "PASSED" && v.Doubt != nil {
		if err := recordFlags(c.ctx, tx, id, []flag{*v.Doubt}); err != nil {
			return err
		}
	}
	if err := tx.Commit(c.ctx); err != nil {
		return err
	}
	b, _ := json.Marshal(v)
	writeMessage(c.w, c.model, string(b))
	return nil
}

// verdictKey identifies a text up to trivial edits: case, diacritics, punctuation and
// spacing do not change it.
func verdictKey(text string) string {
	sum := sha256.Sum256([]byte(normText(text)))
	return hex.EncodeToString(sum[:])
}

// The gateway's reads of a student's earlier work on a case. They compare the uuid
// columns with uuid arguments so that the indexes serve them: a cast of the column
// (`user_id::text = $1`) read the whole table on every check and grade, a cost that
// grew with every submission ever made (at 600 simulated students, 20 % of the
// database's statement time). Callers pass canonical uuids only (canonicalUUID).
const (
	storedVerdictSQL = `select probability::float8, decision, justification, doubt from casus_meta.ai_verdicts
		where user_id = $1::uuid and case_id = $2::uuid and text_key = $3`
	releasedTextsSQL = `select submission_text from case_submissions
		where user_id = $1::uuid and case_id = $2::uuid and ai_decision = 'RELEASED'`
	earlierGradesSQL = `select id::text, submission_text from case_submissions
		where user_id = $1::uuid and case_id = $2::uuid and status = 'graded' and difficulty_rating = $3
		  and grade_prompt_version = $4 and grade_model = $5 and id <> $6::uuid
		order by feedback_at`
)

// storedVerdict is the verdict this student already got for this case and text.
func (s *Server) storedVerdict(ctx context.Context, uid, caseID, key string) (verdict, bool, error) {
	var v verdict
	if !canonicalUUID(uid) || !canonicalUUID(caseID) {
		return v, false, nil // no row could match
	}
	err := s.d.Owner.QueryRow(ctx, storedVerdictSQL, uid, caseID, key).Scan(&v.Probability, &v.Decision, &v.Justification, &v.Doubt)
	if errors.Is(err, pgx.ErrNoRows) {
		return v, false, nil
	}
	if v.Doubt != nil {
		v.Doubt.Reason = flagAuthorship
	}
	if err != nil || v.Decision == "PASSED" {
		return v, err == nil, err
	}
	// A moderator who released this text after an appeal has overruled the stored
	// FAILED: the same text passes.
	rows, err := s.d.Owner.Query(ctx, releasedTextsSQL, uid, caseID)
	if err != nil {
		return v, false, err
	}
	released, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return v, false, err
	}
	for _, t := range released {
		if verdictKey(t) == key {
			return verdict{Probability: &passedProbability, Decision: "PASSED", Justification: "Textul a fost eliberat de un moderator după o cerere de verificare umană."}, true, nil
		}
	}
	return v, true, nil
}

// verdict is a detection result as recorded.
type verdict struct {
	Probability   *float64 `json:"probability"`
	Decision      string   `json:"decision"`
	Justification string   `json:"justification"`
	// Indicators are the quoted traces of a chat assistant found in the text.
	Indicators []indicator `json:"indicators,omitempty"`
	// Doubt is the moderator flag of a text that passes although the check found traces
	// that do not block, or proposed a block it could not quote (never sent to the
	// student).
	Doubt *flag `json:"-"`
}

// indicator is one quoted trace: A an assistant's formula, B template or markdown
// remnants, C a paragraph in another language, D another case's names or facts.
type indicator struct {
	Type  string `json:"tip"`
	Quote string `json:"citat"`
}

// Recorded probabilities: the detector's number is not a measurement, so the record
// says only which side of the spec's 30 the verdict is on.
var (
	passedProbability = 10.0
	failedProbability = 85.0
)

// parseVerdict reads the detector's JSON and decides on the server: FAILED only with at
// least one quoted indicator of type A or B, or two of type C or D, each quote found in
// the student's text (case, diacritics, punctuation and spacing aside). Whatever the
// model's decision or number says, anything else passes: errors, style, calques and
// missing diacritics never block a student.
func parseVerdict(text, student string) (verdict, bool) {
	var d struct {
		Indicators    []indicator `json:"indicii"`
		Decision      *string     `json:"decision"`
		Probability   *float64    `json:"probability"`
		Justification string      `json:"justification"`
	}
	start := strings.Index(text, "{")
	if start < 0 || json.NewDecoder(strings.NewReader(text[start:])).Decode(&d) != nil {
		return verdict{}, false
	}
	var found []indicator
	strong, weak := 0, 0
	for _, in := range d.Indicators {
		t := strings.ToUpper(strings.TrimSpace(in.Type))
		q := strings.TrimSpace(in.Quote)
		if len(quotedFrom(student, []string{q})) == 0 || len(words(q)) == 0 {
			continue
		}
		switch t {
		case "A", "B":
			strong++
		case "C", "D":
			weak++
		default:
			continue
		}
		found = append(found, indicator{t, q})
	}
	v := verdict{Indicators: found}
	if strong >= 1 || weak >= 2 {
		v.Decision, v.Probability = "FAILED", &failedProbability
		var quotes []string
		for _, in := range found {
			quotes = append(quotes, fmt.Sprintf("„%s” (%s)", in.Quote, indicatorNames[in.Type]))
		}
		v.Justification = "Urme ale unei conversații cu un asistent AI, citate din text: " + strings.Join(quotes, "; ") + "."
		return v, true
	}
	v.Decision, v.Probability = "PASSED", &passedProbability
	v.Justification = "Niciun indiciu concret al unui text copiat dintr-o conversație cu un asistent AI."
	// The model's own proposal, by the spec's rule: its decision, or without one its
	// number above 30.
	decision := ""
	if d.Decision != nil {
		decision = strings.ToUpper(strings.TrimSpace(*d.Decision))
	}
	proposed := decision == "FAILED" || decision == "" && d.Probability != nil && *d.Probability > 30
	if proposed {
		v.Justification += " (Verificarea automată a propus blocarea fără urme citate din text; textul trece.)"
	}
	v.Doubt = doubtFlag(found, proposed)
	return v, true
}

// doubtFlag is the moderator flag of a passing verdict with traces below the threshold
// (quoted) or a block the model proposed without a quote it could back; nil without
// either: the student is graded, a moderator takes a look.
func doubtFlag(found []indicator, proposed bool) *flag {
	if len(found) == 0 && !proposed {
		return nil
	}
	f := flag{Reason: flagAuthorship, Evidence: []string{}}
	if len(found) == 0 {
		f.Detail = "Verificarea automată a propus blocarea fără urme citate din text; textul a trecut verificarea."
		return &f
	}
	var quotes, kinds []string
	seen := map[string]bool{}
	for _, in := range found {
		quotes = append(quotes, in.Quote)
		if name := indicatorNames[in.Type]; !seen[name] {
			seen[name] = true
			kinds = append(kinds, name)
		}
	}
	f.Evidence = evidence(quotes)
	f.Detail = "Urme care singure nu blochează (" + strings.Join(kinds, ", ") + "); textul a trecut verificarea."
	return &f
}

var indicatorNames = map[string]string{
	"A": "formulă de asistent conversațional", "B": "rest de șablon sau de formatare",
	"C": "paragraf în altă limbă", "D": "element al altui caz",
}

// markFailed records that the model call for a submission's check failed, so My Progress
// can say so (and the student try again) instead of showing it as in progress forever.
func (c *call) markFailed(id string) {
	if _, err := c.s.d.Owner.Exec(context.WithoutCancel(c.ctx), `update case_submissions set ai_failed_at = now()
		where id = $1::uuid and status = 'submitted' and ai_checked_at is null`, id); err != nil {
		c.s.d.Log.Error("ai mark failed", "err", err)
	}
}

// grade grades a submission exactly once. The submission is claimed first (status
// 'grading', only from 'submitted' and only if its check passed), which also freezes
// its text; the grade is recorded only from that claim. A failure gives the claim back.
func (c *call) grade(id string) error {
	if id == "" {
		return bad("X-Casus-Submission is required")
	}
	if !canonicalUUID(id) {
		return &apiError{404, "not_found_error", "Soluția nu există."}
	}
	var text, caseID string
	var level int
	var claimed time.Time
	// The claim runs to its answer even when the browser leaves meanwhile: a claim committed
	// while its answer was cancelled away would stay with this (live) server, unreleased,
	// and block the submission until staleClaim. The caller's leaving is honoured after.
	claimCtx, cancelClaim := context.WithTimeout(context.WithoutCancel(c.ctx), time.Minute)
	defer cancelClaim()
	err := c.s.d.Owner.QueryRow(claimCtx, `update case_submissions set status = 'grading', grading_started_at = clock_timestamp(), grading_holder = $5
		where id = $1::uuid and user_id::text = $2 and `+passedSQL+` and char_length(submission_text) <= $3
		  and (status = 'submitted' or (status = 'grading' and (grading_started_at < now() - $4::interval or not `+heldSQL+`)))
		returning submission_text, case_id::text, difficulty_rating, grading_started_at`,
		id, c.uid, c.settings.MaxInput, staleClaim.String(), c.s.holder.key).Scan(&text, &caseID, &level, &claimed)
	if errors.Is(err, pgx.ErrNoRows) {
		sub, err := c.s.loadSubmission(c.ctx, c.uid, id)
		switch {
		case err != nil:
			return err
		case sub.status == "graded":
			// One grade per submission: asking again answers what is recorded.
			writeMessage(c.w, c.model, sub.recorded)
			return nil
		case sub.status == "grading":
			return &apiError{409, "invalid_request_error", "Evaluarea acestei soluții este deja în curs."}
		case !sub.passed:
			return &apiError{403, "permission_error", "Soluția nu a trecut verificarea AI, deci nu poate fi evaluată."}
		}
		return tooLarge(c.settings.MaxInput)
	}
	if err != nil {
		return err
	}
	release := func() {
		if _, err := c.s.d.Owner.Exec(context.WithoutCancel(c.ctx), `update case_submissions set status = 'submitted', grading_started_at = null, grading_holder = null,
			ai_failed_at = now()
			where id = $1::uuid and status = 'grading' and grading_started_at = $2`, id, claimed); err != nil {
			c.s.d.Log.Error("ai grade release", "err", err)
		}
	}
	if err := c.ctx.Err(); err != nil {
		release()
		return err
	}
	feedback, err := c.gradeClaimed(id, caseID, text, level, claimed)
	if err != nil {
		release()
		return err
	}
	writeMessage(c.w, c.model, feedback)
	return nil
}

func (c *call) gradeClaimed(id, caseID, text string, level int, claimed time.Time) (string, error) {
	if feedback, ok, err := c.sameGrade(id, caseID, text, level, claimed); err != nil || ok {
		return feedback, err
	}
	if err := c.s.reserve(c.ctx, c.uid, c.task); err != nil {
		return "", err
	}
	cs, err := readCase(c.ctx, c.s.d.Owner, caseID)
	if err != nil {
		return "", err
	}
	ref, err := c.s.loadReference(c.ctx, caseID)
	if err != nil {
		return "", err
	}
	if cs.Cited, err = citedArticles(c.ctx, c.s.d.Owner, text, cs.Domain); err != nil {
		return "", err
	}
	problems := prompts.GradeProblems(ref)
	system := prompts.Grade(level, cs, ref)
	fenced, removed := scoreShapedLines(text)
	turns := []turn{{"user", prompts.Submission(fenced)}}
	// Two independent passes; a third when their totals differ by more than
	// gradeGap, and then every sub-item's median (gradeConsistency in ARCHITECTURE.md).
	var passes []pass
	for len(passes) < 2 || (len(passes) == 2 && abs(passes[0].total-passes[1].total) > gradeGap) {
		p, err := c.gradePass(id, system, turns, problems, text)
		if err != nil {
			return "", err
		}
		passes = append(passes, p)
	}
	g := reconcile(passes, problems)
	var red *redactor
	var leak *leakCheck
	if ref != nil {
		// Only the reference's own words are secret (R7 of grader-review-3).
		public := append([]string{cs.Title, cs.LegalProblem, cs.Description, cs.Question}, ref.Steps...)
		public = append(public, ref.Hints...)
		for _, a := range append(cs.ArticleTexts, cs.Cited...) {
			public = append(public, a.Text)
		}
		secret := []string{ref.ModelAnswer}
		for _, d := range ref.Disputed {
			secret = append(append(secret, d.Chosen), d.AcceptedRoutes...)
		}
		red, leak = c.s.guards.get(secret, public).forStudent(text)
	}
	guardFeedback(&g, red, leak, asksTheGrader(text))
	feedback := feedbackText(g)
	if ref == nil {
		feedback += "\n\nNotă: acest caz nu are o soluție de referință; evaluarea s-a făcut numai după barem și textul articolelor."
	}
	passesJSON, _ := json.Marshal(recordedPasses(passes, problems))
	breakdown, _ := json.Marshal(g.criteria)
	// The grade and its moderator flags are recorded together.
	err = pgx.BeginFunc(c.ctx, c.s.d.Owner, func(tx pgx.Tx) error {
		tag, err := tx.Exec(c.ctx, `update case_submissions set score = $2, score_value = $3, feedback_text = $4, status = 'graded',
			feedback_at = now(), score_breakdown = $5, grade_prompt_version = $6, grade_model = $7, grade_reference_used = $8, grading_started_at = null, grading_holder = null, ai_failed_at = null,
			grade_passes = $11
			where id = $1::uuid and status = 'grading' and grading_started_at = $9 and submission_text = $10`,
			id, fmt.Sprintf("%d/100", g.total), g.total, feedback, breakdown, prompts.Version, c.model, ref != nil, claimed, text, passesJSON)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return gradeFailed // the claim expired and was taken over: record nothing
		}
		return recordFlags(c.ctx, tx, id, gradeFlags(text, removed, g.total))
	})
	if err != nil {
		return "", err
	}
	return feedback, nil
}

// sameGrade records, without the model, the grade this student already has for the same
// case, the same text up to trivial edits (verdictKey), the same strictness, prompt
// version and model (grader-review-3 §6 item 12): sending the same solution again is
// not a second draw. It reports whether it did.
func (c *call) sameGrade(id, caseID, text string, level int, claimed time.Time) (string, bool, error) {
	if !canonicalUUID(c.uid) || !canonicalUUID(caseID) {
		return "", false, nil // no earlier grade could match
	}
	rows, err := c.s.d.Owner.Query(c.ctx, earlierGradesSQL, c.uid, caseID, level, prompts.Version, c.model, id)
	if err != nil {
		return "", false, err
	}
	type graded struct{ id, text string }
	earlier, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (graded, error) {
		var g graded
		return g, r.Scan(&g.id, &g.text)
	})
	if err != nil {
		return "", false, err
	}
	key := verdictKey(text)
	for _, g := range earlier {
		if verdictKey(g.text) != key {
			continue
		}
		var feedback string
		// The same grade raises the same flags (they depend on the text and the total).
		err := pgx.BeginFunc(c.ctx, c.s.d.Owner, func(tx pgx.Tx) error {
			var total float64
			err := tx.QueryRow(c.ctx, `update case_submissions s set score = o.score, score_value = o.score_value, feedback_text = o.feedback_text,
				status = 'graded', feedback_at = now(), score_breakdown = o.score_breakdown, grade_prompt_version = o.grade_prompt_version,
				grade_model = o.grade_model, grade_reference_used = o.grade_reference_used, grade_passes = o.grade_passes,
				grading_started_at = null, grading_holder = null, ai_failed_at = null
				from case_submissions o
				where s.id = $1::uuid and o.id = $2::uuid and s.status = 'grading' and s.grading_started_at = $3 and s.submission_text = $4
				returning s.feedback_text, coalesce(s.score_value, 0)::float8`, id, g.id, claimed, text).Scan(&feedback, &total)
			if errors.Is(err, pgx.ErrNoRows) {
				return gradeFailed // the claim expired and was taken over: record nothing
			}
			if err != nil {
				return err
			}
			_, removed := scoreShapedLines(text)
			return recordFlags(c.ctx, tx, id, gradeFlags(text, removed, int(math.Round(total))))
		})
		return feedback, err == nil, err
	}
	return "", false, nil
}

// maxCited bounds how many of a student's citations are looked up and shown to the grader.
const maxCited = 25

// citedArticles looks up, in the shipped codes, every article the student's text cites
// (each once, the code defaulting to the case's domain): the grader is told which exist
// and what they say, and which numbers do not exist, so it need not trust its memory of
// the Codes. Citations of acts that are not shipped are left to the grader.
func citedArticles(ctx context.Context, q querier, text, domain string) ([]prompts.Article, error) {
	cited, _ := lawcodes.Citations(text, domain)
	var kept []lawcodes.Citation
	seen := map[lawcodes.Citation]bool{}
	for _, ct := range cited {
		if seen[ct] || len(kept) == maxCited {
			continue
		}
		seen[ct] = true
		kept = append(kept, ct)
	}
	texts, err := articleTexts(ctx, q, kept)
	if err != nil {
		return nil, err
	}
	var out []prompts.Article
	for i, ct := range kept {
		out = append(out, prompts.Article{Ref: lawcodes.FormatReference(ct.Code, ct.Number), Text: texts[i]})
	}
	return out, nil
}

// gradeGap is the largest difference between two passes' totals that is settled by their
// mean; above it a third pass decides by median.
const gradeGap = 5

// gradePass is one independent grading: the model's reply read, with one repair call
// when it cannot be.
func (c *call) gradePass(id, system string, turns []turn, problems []prompts.Problem, student string) (pass, error) {
	reply, err := c.complete(system, turns)
	if err != nil {
		return pass{}, err
	}
	p, problem := readPass(reply, problems, student)
	if problem != "" {
		// One repair call: the model sees its own evaluation and what cannot be read.
		reply, err = c.complete(system, append(turns, turn{"assistant", reply}, turn{"user", prompts.GradeRepair(problem)}))
		if err != nil {
			return pass{}, err
		}
		if p, problem = readPass(reply, problems, student); problem != "" {
			c.s.d.Log.Warn("ai grade unreadable", "submission", id, "problem", problem)
			return pass{}, gradeFailed
		}
	}
	p.total = passTotal(p, problems)
	return p, nil
}

// recordedPass is one pass as grade_passes keeps it: its own total and every item's
// points (no text: the reasons recorded are those of the reconciled grade).
type recordedPass struct {
	Total    int              `json:"total"`
	Criteria []criterionScore `json:"criteria"`
}

func recordedPasses(passes []pass, problems []prompts.Problem) []recordedPass {
	out := make([]recordedPass, len(passes))
	for i, p := range passes {
		g := reconcile([]pass{p}, problems)
		for j := range g.criteria {
			g.criteria[j].Comment, g.criteria[j].Evidence = "", nil
			for k := range g.criteria[j].Problems {
				g.criteria[j].Problems[k].Comment, g.criteria[j].Problems[k].Evidence = "", nil
			}
		}
		out[i] = recordedPass{Total: g.total, Criteria: g.criteria}
	}
	return out
}

// loadReference builds the hidden reference of a case: its expected steps, its model
// answer and the weights of its legal problems; nil when the case has no model answer.
func (s *Server) loadReference(ctx context.Context, caseID string) (*prompts.Reference, error) {
	var ref prompts.Reference
	var disputed []byte
	err := s.d.Owner.QueryRow(ctx, `select m.model_answer, m.disputed_points, c.verified,
		coalesce((select array_agg(step_description order by step_number) from case_analysis_steps where case_id = m.case_id), '{}'),
		coalesce((select array_agg(hint_text order by hint_number) from case_hints where case_id = m.case_id), '{}')
		from case_model_answers m join cases c on c.id = m.case_id where m.case_id = $1::uuid`, caseID).
		Scan(&ref.ModelAnswer, &disputed, &ref.Verified, &ref.Steps, &ref.Hints)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(disputed, &ref.Disputed); err != nil {
		return nil, fmt.Errorf("disputed_points of case %s: %w", caseID, err)
	}
	ref.Problems, _ = prompts.Problems(ref.ModelAnswer)
	return &ref, nil
}
