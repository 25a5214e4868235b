// Package aigw is the AI gateway at /ai/v1/messages: it speaks the Anthropic Messages
// API to the browser (so the official SDK works unchanged), holds the provider key, owns
// the prompts of the five uses, records detection and grading of submissions itself, and
// enforces the tutor's 4 rounds and per-user daily quotas.
package aigw

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/aigw/prompts"
	"casus/server/internal/aigw/providers"
	"casus/server/internal/authn"
	"casus/server/internal/catalog"
	"casus/server/internal/deps"
	"casus/server/internal/httpx"
)

// Server is the gateway.
type Server struct {
	d  deps.Deps
	up *upstream
}

// New configures the upstream (nil when no provider is configured).
func New(_ context.Context, d deps.Deps) (*Server, error) {
	s := &Server{d: d}
	switch d.Config.AIProvider {
	case "anthropic":
		s.up = &upstream{base: d.Config.AnthropicBase, key: d.Config.AnthropicAPIKey, client: &http.Client{Timeout: 10 * time.Minute}, backoff: 500 * time.Millisecond}
	case "openai":
		if d.Config.OpenAIBase == "" {
			break // stays unconfigured: 503 with the README pointer
		}
		// The transport translates to chat completions, so retries, timeout and
		// cancellation below work the same for both providers.
		tr := &providers.OpenAI{Base: d.Config.OpenAIBase, Key: d.Config.OpenAIAPIKey}
		s.up = &upstream{base: "http://openai-compatible", client: &http.Client{Timeout: 10 * time.Minute, Transport: tr}, backoff: 500 * time.Millisecond}
	}
	return s, nil
}

// Routes registers the endpoint.
func (s *Server) Routes(mux *http.ServeMux) {
	mux.Handle("POST /ai/v1/messages", httpx.Handle(s.d.Log, func(w http.ResponseWriter, r *http.Request) error {
		err := s.messages(w, r)
		var ae *apiError
		if err != nil && r.Context().Err() != nil {
			return nil // the browser went away mid-request: nobody to answer, nothing to log
		}
		if err != nil && !errors.As(err, &ae) {
			// Unexpected failures still answer in Anthropic's shape, so the SDK reports
			// them as API errors; the log gets the error, never the prompt or text.
			s.d.Log.Error("ai gateway", "task", r.Header.Get("X-Casus-Task"), "err", err)
			return &apiError{500, "api_error", "Ne pare rău, a apărut o problemă. Încearcă din nou."}
		}
		return err
	}))
}

// apiError is Anthropic's error shape.
type apiError struct {
	status int
	typ    string
	msg    string
}

func (e *apiError) Error() string { return e.typ + ": " + e.msg }

func (e *apiError) Render(w http.ResponseWriter, _ *http.Request) {
	httpx.WriteJSON(w, e.status, map[string]any{"type": "error", "error": map[string]string{"type": e.typ, "message": e.msg}})
}

func bad(msg string) *apiError { return &apiError{400, "invalid_request_error", msg} }

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type request struct {
	Model    string    `json:"model"`
	Messages []message `json:"messages"`
	Stream   bool      `json:"stream"`
}

func (s *Server) messages(w http.ResponseWriter, r *http.Request) error {
	claims, err := s.d.Keys.Verify(authn.BearerToken(r))
	if err != nil || claims.Role != authn.RoleAuthenticated || claims.Subject == "" {
		return &apiError{401, "authentication_error", "Autentificarea este necesară pentru funcțiile AI."}
	}
	if s.up == nil {
		return &apiError{503, "api_error", "Funcțiile AI nu sunt configurate pe acest server: setați ANTHROPIC_API_KEY sau AI_PROVIDER=openai cu OPENAI_BASE_URL (vezi README)."}
	}
	task := r.Header.Get("X-Casus-Task")
	settings, ok := prompts.Tasks[task]
	if !ok {
		return bad("X-Casus-Task must be one of tutor, detect, grade, generate, classify")
	}
	var req request
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, s.d.Config.MaxBodyBytes)).Decode(&req); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return &apiError{413, "request_too_large", "Cererea este prea mare."}
		}
		return bad("invalid JSON body: " + err.Error())
	}
	model := s.d.Config.AIModel
	if req.Model != "" {
		allowed := false
		for _, m := range s.d.Config.AIModels {
			allowed = allowed || m == req.Model
		}
		if !allowed {
			return bad(fmt.Sprintf("model %q is not allowed", req.Model))
		}
		model = req.Model
	}
	ctx := r.Context()
	uid := claims.Subject
	// The quota lookup runs while the prompt's rows load: one round trip less in front
	// of the model call.
	quota := make(chan error, 1)
	go func() { quota <- s.reserve(ctx, uid, task) }()
	up := map[string]any{"model": model, "max_tokens": settings.MaxTokens, "temperature": settings.Temperature}
	var submissionID, checkedText string
	switch task {
	case "tutor":
		c, err := s.loadCase(ctx, r.Header.Get("X-Casus-Case"))
		if err != nil {
			return err
		}
		if countUserTurns(req.Messages) > 4 {
			return s.closing(w, req.Stream, model)
		}
		up["system"] = prompts.Tutor(c)
		up["messages"] = req.Messages
	case "detect", "grade":
		submissionID = r.Header.Get("X-Casus-Submission")
		sub, err := s.loadSubmission(ctx, uid, submissionID)
		if err != nil {
			return err
		}
		// One check and one grade per submission: asking again (an SDK retry, a
		// reload) answers what is recorded without the model, so it cannot turn a
		// failed check into a pass or re-roll a grade.
		if (task == "detect" && sub.checked) || (task == "grade" && sub.graded) {
			writeMessage(w, model, sub.recorded)
			return nil
		}
		if task == "grade" && !sub.passed {
			return &apiError{403, "permission_error", "Soluția nu a trecut verificarea AI, deci nu poate fi evaluată."}
		}
		req.Stream = false // the server must read the whole reply to record it
		checkedText = sub.text
		if task == "detect" {
			up["system"] = prompts.Detect()
			up["messages"] = []map[string]string{{"role": "user", "content": sub.text}}
		} else {
			up["system"] = prompts.Grade(sub.level, sub.c)
			up["messages"] = []map[string]string{{"role": "user", "content": "Soluția studentului:\n\n" + sub.text}}
		}
	case "generate":
		up["system"] = prompts.Generate()
		up["messages"] = lastUser(req.Messages)
	case "classify":
		cat, err := catalog.Load()
		if err != nil {
			return err
		}
		domain := r.Header.Get("X-Casus-Domain")
		if domain == "" {
			domain = "civil"
		}
		up["system"] = prompts.Classify(cat.Labels(domain))
		up["messages"] = lastUser(req.Messages)
	}
	if len(req.Messages) == 0 && (task == "tutor" || task == "generate" || task == "classify") {
		return bad("messages must not be empty")
	}
	if err := <-quota; err != nil {
		return err
	}
	up["stream"] = req.Stream
	body, _ := json.Marshal(up)
	res, err := s.up.post(ctx, body, req.Stream)
	if err != nil {
		if ctx.Err() != nil {
			return nil // the browser went away; the upstream call was cancelled with it
		}
		return unreachable
	}
	if req.Stream && res.StatusCode == 200 {
		// Usage is recorded after the stream, with the tokens it reported, so the
		// first event reaches the browser without waiting for the database.
		s.addTokens(ctx, uid, task, relaySSE(w, res))
		return nil
	}
	raw, err := drain(res.Body)
	if err != nil {
		// The connection broke mid-reply: a partial body is not the model's answer.
		if ctx.Err() != nil {
			return nil
		}
		return unreachable
	}
	if res.StatusCode != 200 {
		// A failed call still counts: its request was reserved by the quota check.
		if !isAPIError(raw) {
			// Not the provider's own error (a proxy's HTML page, say): the browser's SDK
			// still gets the Messages API's shape.
			return &apiError{res.StatusCode, errorType(res.StatusCode), unreachable.msg}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(res.StatusCode)
		_, _ = w.Write(raw)
		return nil
	}
	var reply struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		Usage struct {
			In  int `json:"input_tokens"`
			Out int `json:"output_tokens"`
		} `json:"usage"`
	}
	_ = json.Unmarshal(raw, &reply)
	text := ""
	if len(reply.Content) > 0 && reply.Content[0].Type == "text" {
		text = reply.Content[0].Text
	}
	recorded := true
	switch task {
	case "detect":
		recorded, err = s.recordDetection(ctx, submissionID, text, checkedText)
	case "grade":
		recorded, err = s.recordGrade(ctx, submissionID, text, checkedText)
	}
	if err != nil {
		return err
	}
	if !recorded {
		// Another call recorded this submission's check or grade first (a double
		// click, a second tab): both callers get the one result that was kept.
		sub, err := s.loadSubmission(ctx, uid, submissionID)
		if err != nil {
			return err
		}
		if (task == "detect" && !sub.checked) || (task == "grade" && !sub.graded) {
			return &apiError{409, "invalid_request_error", "Soluția a fost modificată în timpul evaluării. Încearcă din nou."}
		}
		writeMessage(w, model, sub.recorded)
		s.addTokens(ctx, uid, task, reply.Usage.In+reply.Usage.Out)
		return nil
	}
	// The reply goes out complete (length known, flushed) before the token count is
	// added, so the browser does not wait for that write.
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(raw)))
	_, _ = w.Write(raw)
	_ = http.NewResponseController(w).Flush()
	s.addTokens(ctx, uid, task, reply.Usage.In+reply.Usage.Out)
	return nil
}

func countUserTurns(ms []message) int {
	n := 0
	for _, m := range ms {
		if m.Role == "user" {
			n++
		}
	}
	return n
}

func lastUser(ms []message) []message {
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].Role == "user" {
			return []message{ms[i]}
		}
	}
	return nil
}

// writeMessage answers with a server-made assistant message (no model call).
func writeMessage(w http.ResponseWriter, model, text string) {
	httpx.WriteJSON(w, 200, map[string]any{"id": "msg_casus_recorded", "type": "message", "role": "assistant", "model": model,
		"content": []map[string]string{{"type": "text", "text": text}}, "stop_reason": "end_turn", "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": 0, "output_tokens": 0}})
}

// closing answers the 5th tutor interaction with the fixed message, without the model.
func (s *Server) closing(w http.ResponseWriter, stream bool, model string) error {
	msg := map[string]any{"id": "msg_casus_closing", "type": "message", "role": "assistant", "model": model,
		"content": []map[string]string{{"type": "text", "text": prompts.TutorClosing}}, "stop_reason": "end_turn", "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": 0, "output_tokens": 0}}
	if !stream {
		httpx.WriteJSON(w, 200, msg)
		return nil
	}
	w.Header().Set("Content-Type", "text/event-stream")
	start := map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_casus_closing", "type": "message", "role": "assistant", "model": model, "content": []any{}, "stop_reason": nil, "usage": map[string]int{"input_tokens": 0, "output_tokens": 0}}}
	events := []map[string]any{
		start,
		{"type": "content_block_start", "index": 0, "content_block": map[string]string{"type": "text", "text": ""}},
		{"type": "content_block_delta", "index": 0, "delta": map[string]string{"type": "text_delta", "text": prompts.TutorClosing}},
		{"type": "content_block_stop", "index": 0},
		{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 0}},
		{"type": "message_stop"},
	}
	for _, e := range events {
		b, _ := json.Marshal(e)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e["type"], b)
	}
	return nil
}

func (s *Server) loadCase(ctx context.Context, id string) (prompts.Case, error) {
	var c prompts.Case
	if id == "" {
		return c, bad("X-Casus-Case is required for the tutor")
	}
	err := s.d.Owner.QueryRow(ctx, `select title, legal_problem, case_description, question,
		coalesce((select array_agg(article_reference order by article_number) from case_articles where case_id = c.id), '{}')
		from cases c where id::text = $1`, id).Scan(&c.Title, &c.LegalProblem, &c.Description, &c.Question, &c.Articles)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, &apiError{404, "not_found_error", "Cazul nu există."}
	}
	return c, err
}

type submission struct {
	text            string
	level           int
	passed          bool
	checked, graded bool
	recorded        string // what a repeated call answers: the stored check or grade
	c               prompts.Case
}

// loadSubmission reads a submission of this user (someone else's is "not found").
func (s *Server) loadSubmission(ctx context.Context, uid, id string) (submission, error) {
	var sub submission
	var caseID string
	var decision *string
	var prob *float64
	if id == "" {
		return sub, bad("X-Casus-Submission is required")
	}
	err := s.d.Owner.QueryRow(ctx, `select submission_text, difficulty_rating, case_id::text, ai_decision, ai_probability,
		ai_checked_at is not null, status = 'graded',
		case when status = 'graded' then coalesce(feedback_text, '')
		     else json_build_object('probability', ai_probability, 'decision', ai_decision, 'justification', ai_justification)::text end
		from case_submissions where id::text = $1 and user_id::text = $2`, id, uid).Scan(&sub.text, &sub.level, &caseID, &decision, &prob, &sub.checked, &sub.graded, &sub.recorded)
	if errors.Is(err, pgx.ErrNoRows) {
		return sub, &apiError{404, "not_found_error", "Soluția nu există."}
	}
	if err != nil {
		return sub, err
	}
	sub.passed = detectionPassed(decision, prob)
	sub.c, err = s.loadCase(ctx, caseID)
	return sub, err
}

// detectionPassed applies the spec's rule: decision PASSED, or — without a decision —
// a probability of 30 or below.
func detectionPassed(decision *string, prob *float64) bool {
	if decision != nil && *decision != "" {
		return strings.EqualFold(*decision, "PASSED")
	}
	return prob != nil && *prob <= 30
}

var jsonObject = regexp.MustCompile(`(?s)\{.*\}`)

// unreachable is the answer when the provider cannot be reached or its reply broke off.
var unreachable = &apiError{502, "api_error", "Furnizorul AI nu răspunde. Încearcă din nou."}

// isAPIError reports whether an upstream error body is the Messages API's error object.
func isAPIError(body []byte) bool {
	var e struct {
		Type  string `json:"type"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	return json.Unmarshal(body, &e) == nil && e.Type == "error" && e.Error.Type != "" && e.Error.Message != ""
}

// errorType is the Messages API's error type for an HTTP status.
func errorType(status int) string {
	switch status {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 413:
		return "request_too_large"
	case 429:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	}
	return "api_error"
}

// recordDetection stores the check of the text that was checked, once: it records
// nothing (false) when a check is already recorded or the text changed meanwhile.
func (s *Server) recordDetection(ctx context.Context, id, text, checkedText string) (bool, error) {
	var d struct {
		Probability   *float64 `json:"probability"`
		Decision      *string  `json:"decision"`
		Justification string   `json:"justification"`
	}
	if m := jsonObject.FindString(text); m == "" || json.Unmarshal([]byte(m), &d) != nil {
		return false, &apiError{502, "api_error", "Ne pare rău, a apărut o problemă. Încearcă din nou."}
	}
	passed := detectionPassed(d.Decision, d.Probability)
	var feedback *string
	if !passed {
		p := 0.0
		if d.Probability != nil {
			p = *d.Probability
		}
		f := fmt.Sprintf("Verificarea AI: probabilitate de text generat de AI %.0f%%. %s", p, d.Justification)
		feedback = &f
	}
	tag, err := s.d.Owner.Exec(ctx, `update case_submissions set ai_probability = $2, ai_decision = $3, ai_justification = $4,
		ai_checked_at = now(), feedback_text = coalesce($5, feedback_text)
		where id::text = $1 and ai_checked_at is null and submission_text = $6`,
		id, d.Probability, d.Decision, d.Justification, feedback, checkedText)
	return tag.RowsAffected() == 1, err
}

var (
	totalRe = regexp.MustCompile(`PUNCTAJ TOTAL:\s*(\d{1,3})\s*/\s*100`)
	// One rubric line: "2.2.1 Premisa majoră: 17/20 – …" (code, optional label, points/max).
	criterionRe = regexp.MustCompile(`(?m)^[\s*#-]*(1\.[1-6]|2\.1|2\.2\.[1-3])\.?(?:\s[^:\n]*)?:[\s*]*(\d{1,3})\s*/\s*(\d{1,3})`)
)

// recordGrade stores the score only when "PUNCTAJ TOTAL: N/100" parses, once, for the
// text that was graded: it records nothing (false) when a grade is already recorded or
// the text changed meanwhile. A reply without a total is no grade (true, nothing stored).
func (s *Server) recordGrade(ctx context.Context, id, text, gradedText string) (bool, error) {
	// The rubric asks for the total exactly once; a reply with none, or with several
	// (say, one echoed from the student's text), records nothing.
	all := totalRe.FindAllStringSubmatch(text, -1)
	if len(all) != 1 {
		return true, nil
	}
	m := all[0]
	n, _ := strconv.Atoi(m[1])
	if n > 100 {
		return true, nil
	}
	breakdown := map[string]any{}
	for _, c := range criterionRe.FindAllStringSubmatch(text, -1) {
		got, _ := strconv.Atoi(c[2])
		max, _ := strconv.Atoi(c[3])
		for _, cr := range prompts.Criteria {
			// Only lines that match the rubric's maximum and stay within it are kept.
			if cr.Code == c[1] && cr.Max == max && got <= max {
				breakdown[cr.Code] = map[string]any{"label": cr.Label, "score": got, "max": max}
			}
		}
	}
	bj, _ := json.Marshal(map[string]any{"criteria": breakdown, "prompt_version": prompts.Version})
	tag, err := s.d.Owner.Exec(ctx, `update case_submissions set score = $2, score_value = $3, feedback_text = $4,
		status = 'graded', feedback_at = now(), score_breakdown = $5
		where id::text = $1 and status <> 'graded' and submission_text = $6`, id, fmt.Sprintf("%d/100", n), n, text, bj, gradedText)
	return tag.RowsAffected() == 1, err
}

// reserve counts this request against the user's daily quota in one statement, and
// refuses it (429) when the requests or tokens used today already reach the limits.
// Counting up front keeps the request limit exact for sequential calls; tokens are added
// when the reply is known (addTokens).
func (s *Server) reserve(ctx context.Context, uid, task string) error {
	tag, err := s.d.Owner.Exec(ctx, `with used as (
			select coalesce(sum(requests), 0) as requests, coalesce(sum(tokens), 0) as tokens
			from casus_meta.ai_usage where user_id = $1::uuid and day = current_date)
		insert into casus_meta.ai_usage (user_id, task, requests, tokens)
		select $1::uuid, $2, 1, 0 from used where used.requests < $3 and used.tokens < $4
		on conflict (user_id, day, task) do update set requests = ai_usage.requests + 1`,
		uid, task, s.d.Config.AIDailyRequests, s.d.Config.AIDailyTokens)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return &apiError{429, "rate_limit_error", "Ai atins limita zilnică de utilizare a funcțiilor AI. Încearcă din nou mâine."}
	}
	return nil
}

// addTokens adds the tokens a reply reported to today's usage of this use.
func (s *Server) addTokens(ctx context.Context, uid, task string, tokens int) {
	if tokens <= 0 {
		return
	}
	if _, err := s.d.Owner.Exec(context.WithoutCancel(ctx), `update casus_meta.ai_usage set tokens = tokens + $3
		where user_id = $1::uuid and day = current_date and task = $2`, uid, task, tokens); err != nil {
		s.d.Log.Error("ai usage", "err", err)
	}
}
