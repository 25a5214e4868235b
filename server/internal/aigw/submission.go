package aigw

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/aigw/prompts"
)

// gradeFailed is the answer when no checked grade came out of the model (HTTP 502 in
// Anthropic's shape, the message the student reads); nothing is recorded.
var gradeFailed = &apiError{502, "api_error", prompts.GradeFailed}

// passedSQL is the spec's rule for "may this be graded", plus a moderator's release
// after an appeal: decision PASSED or RELEASED, or no decision and probability ≤ 30.
const passedSQL = `coalesce(upper(coalesce(ai_decision, '')) in ('PASSED', 'RELEASED') or (coalesce(ai_decision, '') = '' and ai_probability <= 30), false)`

// recordedSQL is what a repeated call answers: the stored grade, or the stored check.
const recordedSQL = `case when status = 'graded' then coalesce(feedback_text, '')
	else json_build_object('probability', ai_probability, 'decision', ai_decision, 'justification', ai_justification)::text end`

// staleClaim is how long a 'grading' claim holds at most: longer than any model call (the
// upstream client gives up after 10 minutes). A claim whose server died is free at once
// (claimHolder).
const staleClaim = 15 * time.Minute

type submissionState struct {
	text, status string
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
	err := s.d.Owner.QueryRow(ctx, `select submission_text, status, ai_checked_at is not null, `+passedSQL+`, `+recordedSQL+`
		from case_submissions where id = $1::uuid and user_id::text = $2`, id, uid).Scan(&st.text, &st.status, &st.checked, &st.passed, &st.recorded)
	if errors.Is(err, pgx.ErrNoRows) {
		return st, &apiError{404, "not_found_error", "Soluția nu există."}
	}
	return st, err
}

// detect runs the AI-authorship check once per text. The verdict is written only onto
// the exact text that was judged: the UPDATE compares it, so a text swapped while the
// model was thinking keeps no verdict and needs a check of its own.
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
	if err := c.s.reserve(c.ctx, c.uid, c.task); err != nil {
		return err
	}
	reply, err := c.complete(prompts.Detect(), []turn{{"user", prompts.Submission(sub.text)}})
	if err != nil {
		c.markFailed(id)
		return err
	}
	v, ok := parseVerdict(reply)
	if !ok {
		c.s.d.Log.Error("ai detect", "err", "unparsable verdict")
		c.markFailed(id)
		return &apiError{502, "api_error", "Ne pare rău, a apărut o problemă. Încearcă din nou."}
	}
	var feedback *string
	if v.Decision != "PASSED" {
		f := fmt.Sprintf("Verificarea AI: probabilitate de text generat de AI %.0f%%. %s", *v.Probability, v.Justification)
		feedback = &f
	}
	tag, err := c.s.d.Owner.Exec(c.ctx, `update case_submissions set ai_probability = $2, ai_decision = $3, ai_justification = $4,
		ai_checked_at = now(), ai_failed_at = null, feedback_text = coalesce($5, feedback_text)
		where id = $1::uuid and status = 'submitted' and ai_checked_at is null and submission_text = $6`,
		id, v.Probability, v.Decision, v.Justification, feedback, sub.text)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return &apiError{409, "invalid_request_error", "Soluția a fost modificată în timpul verificării. Trimite-o din nou."}
	}
	b, _ := json.Marshal(v)
	writeMessage(c.w, c.model, string(b))
	return nil
}

// verdict is a detection result as recorded.
type verdict struct {
	Probability   *float64 `json:"probability"` // nil: the detector gave only a PASSED decision
	Decision      string   `json:"decision"`
	Justification string   `json:"justification"`
}

// parseVerdict reads the detector's JSON. The decision counts only together with a
// probability that agrees: PASSED needs a probability of 30 or less, so PASSED at 90 is a
// contradiction, recorded as FAILED with the reason. Without a decision the probability
// decides (≤ 30 passes), as the spec says; an unknown decision is FAILED, with the reason.
func parseVerdict(text string) (verdict, bool) {
	var d struct {
		Probability   *float64 `json:"probability"`
		Decision      *string  `json:"decision"`
		Justification string   `json:"justification"`
	}
	start := strings.Index(text, "{")
	if start < 0 || json.NewDecoder(strings.NewReader(text[start:])).Decode(&d) != nil {
		return verdict{}, false
	}
	if d.Probability != nil && (math.IsNaN(*d.Probability) || *d.Probability < 0 || *d.Probability > 100) {
		return verdict{}, false
	}
	v := verdict{Justification: strings.TrimSpace(d.Justification)}
	decision := ""
	if d.Decision != nil {
		decision = strings.ToUpper(strings.TrimSpace(*d.Decision))
	}
	switch {
	case d.Probability == nil && decision == "PASSED":
		v.Decision = "PASSED" // the spec's contract: a PASSED decision passes
	case d.Probability == nil:
		return verdict{}, false
	case decision == "":
		v.Probability = d.Probability
		v.Decision = map[bool]string{true: "PASSED", false: "FAILED"}[*d.Probability <= 30]
	case decision == "PASSED" && *d.Probability <= 30, decision == "FAILED" && *d.Probability > 30:
		v.Probability, v.Decision = d.Probability, decision
	default:
		v.Probability, v.Decision = d.Probability, "FAILED"
		v.Justification = strings.TrimSpace(fmt.Sprintf("Decizie contradictorie a verificării (%q cu probabilitatea %.0f); tratată ca FAILED. %s",
			*d.Decision, *d.Probability, v.Justification))
	}
	return v, true
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
	problems := prompts.GradeProblems(ref)
	system := prompts.Grade(level, cs, ref)
	turns := []turn{{"user", prompts.Submission(scoreShapedLines(text))}}
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
	if ref != nil {
		// Only the reference's own words are secret (R7 of grader-review-3).
		public := append([]string{cs.Title, cs.LegalProblem, cs.Description, cs.Question, text}, ref.Steps...)
		public = append(public, ref.Hints...)
		for _, a := range append(cs.ArticleTexts, cs.Cited...) {
			public = append(public, a.Text)
		}
		red = newRedactor(ref.ModelAnswer).without(public...)
	}
	if red != nil {
		for i := range g.criteria {
			g.criteria[i].Comment = red.redact(g.criteria[i].Comment)
			for j := range g.criteria[i].Problems {
				g.criteria[i].Problems[j].Comment = red.redact(g.criteria[i].Problems[j].Comment)
			}
		}
		g.strengths, g.improve = red.redact(g.strengths), red.redact(g.improve)
	}
	feedback := feedbackText(g)
	if ref == nil {
		feedback += "\n\nNotă: acest caz nu are o soluție de referință; evaluarea s-a făcut numai după barem și textul articolelor."
	}
	passesJSON, _ := json.Marshal(recordedPasses(passes, problems))
	breakdown, _ := json.Marshal(g.criteria)
	tag, err := c.s.d.Owner.Exec(c.ctx, `update case_submissions set score = $2, score_value = $3, feedback_text = $4, status = 'graded',
		feedback_at = now(), score_breakdown = $5, grade_prompt_version = $6, grade_model = $7, grade_reference_used = $8, grading_started_at = null, grading_holder = null, ai_failed_at = null,
		grade_passes = $11
		where id = $1::uuid and status = 'grading' and grading_started_at = $9 and submission_text = $10`,
		id, fmt.Sprintf("%d/100", g.total), g.total, feedback, breakdown, prompts.Version, c.model, ref != nil, claimed, text, passesJSON)
	if err != nil {
		return "", err
	}
	if tag.RowsAffected() == 0 {
		return "", gradeFailed // the claim expired and was taken over: record nothing
	}
	return feedback, nil
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
	err := s.d.Owner.QueryRow(ctx, `select m.model_answer,
		coalesce((select array_agg(step_description order by step_number) from case_analysis_steps where case_id = m.case_id), '{}'),
		coalesce((select array_agg(hint_text order by hint_number) from case_hints where case_id = m.case_id), '{}')
		from case_model_answers m where m.case_id = $1::uuid`, caseID).Scan(&ref.ModelAnswer, &ref.Steps, &ref.Hints)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	ref.Problems, _ = prompts.Problems(ref.ModelAnswer)
	return &ref, nil
}
