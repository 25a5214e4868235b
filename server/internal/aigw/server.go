// Package aigw is the AI gateway at /ai/v1/messages: it speaks the Anthropic Messages
// API to the browser (so the official SDK works unchanged), holds the provider key, owns
// the prompts of the five uses, records detection and grading of submissions itself, and
// enforces the tutor's 4 rounds and per-user daily quotas. The grade is checked on the
// server (ten criterion lines summing to the total) before it is recorded.
package aigw

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"casus/server/internal/aigw/prompts"
	"casus/server/internal/aigw/providers"
	"casus/server/internal/authn"
	"casus/server/internal/catalog"
	"casus/server/internal/deps"
	"casus/server/internal/httpx"
)

// Server is the gateway.
type Server struct {
	d      deps.Deps
	up     *upstream
	holder *claimHolder
	guards refGuards
}

// New configures the upstream (nil when no provider is configured).
func New(_ context.Context, d deps.Deps) (*Server, error) {
	s := &Server{d: d, holder: holdClaims(d.DatabaseURL, d.Log)}
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

// Close gives up this process's grading-claim holder.
func (s *Server) Close() error { return s.holder.Close() }

// Routes registers the endpoint.
func (s *Server) Routes(mux *http.ServeMux) {
	mux.Handle("POST /ai/v1/messages", httpx.Handle(s.d.Log, func(w http.ResponseWriter, r *http.Request) error {
		err := s.messages(w, r)
		if err == errGone {
			return nil // the browser left, or the stream had begun: nothing more to write
		}
		var ae *apiError
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
	// The gateway's answers are final (it already retried the provider): the official
	// SDK would otherwise retry a 5xx or 429 on its own, calling the model again.
	w.Header().Set("x-should-retry", "false")
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

// upstreamFailed is what the browser sees of any provider failure; the provider's own
// status and message (which may name the key) go to the log only.
var upstreamFailed = &apiError{502, "api_error", "Furnizorul AI nu răspunde. Încearcă din nou."}

func tooLarge(max int) *apiError {
	return &apiError{413, "request_too_large", fmt.Sprintf("Mesajul este prea lung (cel mult %d de caractere).", max)}
}

func (s *Server) messages(w http.ResponseWriter, r *http.Request) error {
	id := s.d.Keys.Identify(r)
	claims := id.Claims
	if !id.Bearer || id.BearerErr != nil || claims.Role != authn.RoleAuthenticated || claims.Subject == "" {
		return &apiError{401, "authentication_error", "Autentificarea este necesară pentru funcțiile AI."}
	}
	if claims.IsAnonymous {
		// A visitor trying a case (signInAnonymously) reads it; the tutor and grading
		// are for accounts, as RLS keeps every write for them.
		return &apiError{403, "permission_error", "Creează un cont ca să folosești tutorele și evaluarea AI."}
	}
	if s.up == nil {
		return &apiError{503, "api_error", "Funcțiile AI nu sunt configurate pe acest server: setați ANTHROPIC_API_KEY sau AI_PROVIDER=openai cu OPENAI_BASE_URL (vezi README)."}
	}
	task := r.Header.Get("X-Casus-Task")
	settings, ok := prompts.Tasks[task]
	if !ok {
		return bad("X-Casus-Task must be one of " + strings.Join(prompts.TaskNames, ", "))
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
		if !slices.Contains(s.d.Config.AIModels, req.Model) {
			return bad(fmt.Sprintf("model %q is not allowed", req.Model))
		}
		model = req.Model
	}
	c := call{s: s, w: w, ctx: r.Context(), claims: claims, uid: claims.Subject, task: task, model: model, settings: settings, stream: req.Stream}
	switch task {
	case "tutor":
		return c.tutor(r.Header.Get("X-Casus-Case"), req.Messages)
	case "detect":
		return c.detect(r.Header.Get("X-Casus-Submission"))
	case "grade":
		return c.grade(r.Header.Get("X-Casus-Submission"))
	}
	// generate, classify: the server's prompt and the last user message only.
	msgs := lastUser(req.Messages)
	if len(msgs) == 0 {
		return bad("messages must not be empty")
	}
	text, ok := textOf(msgs[0].Content)
	if !ok {
		return bad("messages must carry text only")
	}
	if utf8.RuneCountInString(text) > settings.MaxInput {
		return tooLarge(settings.MaxInput)
	}
	system := prompts.Generate()
	if task == "classify" {
		cat, err := catalog.Load()
		if err != nil {
			return err
		}
		domain := r.Header.Get("X-Casus-Domain")
		if domain == "" {
			domain = "civil"
		}
		system = prompts.Classify(cat.Labels(domain))
	}
	if err := s.reserve(c.ctx, c.uid, task); err != nil {
		return err
	}
	if req.Stream {
		_, err := c.relay(system, []turn{{"user", text}})
		return err
	}
	reply, err := c.complete(system, []turn{{"user", text}})
	if err != nil {
		return err
	}
	writeMessage(w, model, reply)
	return nil
}

// call is one browser request to the gateway.
type call struct {
	s        *Server
	w        http.ResponseWriter
	ctx      context.Context
	claims   *authn.Claims
	uid      string
	task     string
	model    string
	settings prompts.Task
	stream   bool
}

// turn is a text message sent upstream.
type turn struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

func (c *call) body(system string, turns []turn, stream bool) []byte {
	b, _ := json.Marshal(map[string]any{"model": c.model, "max_tokens": c.settings.MaxTokens, "temperature": c.settings.Temperature,
		"system": system, "messages": turns, "stream": stream})
	return b
}

// complete makes one non-streamed model call and returns its text. Tokens count toward
// the quota; any provider failure becomes upstreamFailed (details in the log).
func (c *call) complete(system string, turns []turn) (string, error) {
	res, err := c.s.up.post(c.ctx, c.body(system, turns, false), false)
	if err != nil {
		if c.ctx.Err() != nil {
			return "", errGone
		}
		c.s.d.Log.Error("ai upstream", "task", c.task, "err", err)
		return "", upstreamFailed
	}
	raw, rerr := drain(res.Body)
	if rerr != nil {
		// The connection broke mid-reply: a truncated body is never read as a reply.
		c.s.d.Log.Error("ai upstream", "task", c.task, "err", "reply cut: "+rerr.Error())
		return "", upstreamFailed
	}
	if res.StatusCode != 200 {
		c.s.d.Log.Error("ai upstream", "task", c.task, "status", res.StatusCode, "body", string(raw))
		return "", upstreamFailed
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
	if json.Unmarshal(raw, &reply) != nil || len(reply.Content) == 0 || reply.Content[0].Type != "text" {
		c.s.d.Log.Error("ai upstream", "task", c.task, "err", "reply without text", "body", string(raw))
		return "", upstreamFailed
	}
	c.s.addTokens(c.ctx, c.uid, c.task, reply.Usage.In+reply.Usage.Out)
	return reply.Content[0].Text, nil
}

// relay streams a model call to the browser and returns the text it carried.
func (c *call) relay(system string, turns []turn) (string, error) {
	res, err := c.s.up.post(c.ctx, c.body(system, turns, true), true)
	if err != nil {
		if c.ctx.Err() != nil {
			return "", errGone
		}
		c.s.d.Log.Error("ai upstream", "task", c.task, "err", err)
		return "", upstreamFailed
	}
	if res.StatusCode != 200 {
		body, _ := drain(res.Body)
		c.s.d.Log.Error("ai upstream", "task", c.task, "status", res.StatusCode, "body", string(body))
		return "", upstreamFailed
	}
	// Usage is recorded after the stream, with the tokens it reported, so the first
	// event reaches the browser without waiting for the database.
	tokens, text, complete := relaySSE(c.w, res)
	c.s.addTokens(c.ctx, c.uid, c.task, tokens)
	if !complete {
		return "", errGone
	}
	return text, nil
}

// errGone: the browser left (or the stream broke off) after the answer began; nothing
// more can be written to it.
var errGone = &apiError{499, "api_error", "client closed request"}

// textOf reads a message's content: a string, or text blocks only (an image, a tool
// result or any other block is refused, never forwarded).
func textOf(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil || len(blocks) == 0 {
		return "", false
	}
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Type != "text" {
			return "", false
		}
		b.WriteString(bl.Text)
	}
	return b.String(), true
}

func lastUser(ms []message) []message {
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].Role == "user" {
			return []message{ms[i]}
		}
	}
	return nil
}

// writeMessage answers with a server-made assistant message.
func writeMessage(w http.ResponseWriter, model, text string) {
	httpx.WriteJSON(w, 200, map[string]any{"id": "msg_casus_" + strconv.FormatInt(time.Now().UnixNano(), 36), "type": "message", "role": "assistant", "model": model,
		"content": []map[string]string{{"type": "text", "text": text}}, "stop_reason": "end_turn", "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": 0, "output_tokens": 0}})
}

// writeFixed answers with a fixed assistant message, as JSON or as a stream.
func writeFixed(w http.ResponseWriter, stream bool, model, text string) {
	if !stream {
		writeMessage(w, model, text)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	start := map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_casus_closing", "type": "message", "role": "assistant", "model": model, "content": []any{}, "stop_reason": nil, "usage": map[string]int{"input_tokens": 0, "output_tokens": 0}}}
	events := []map[string]any{
		start,
		{"type": "content_block_start", "index": 0, "content_block": map[string]string{"type": "text", "text": ""}},
		{"type": "content_block_delta", "index": 0, "delta": map[string]string{"type": "text_delta", "text": text}},
		{"type": "content_block_stop", "index": 0},
		{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 0}},
		{"type": "message_stop"},
	}
	for _, e := range events {
		b, _ := json.Marshal(e)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e["type"], b)
	}
}
