// Package providers adapts upstreams that do not speak the Anthropic Messages API.
//
// OpenAI is an http.RoundTripper: the gateway keeps building Anthropic requests and
// reading Anthropic replies (JSON or server-sent events), and this transport rewrites a
// POST …/v1/messages into an OpenAI-compatible POST {base}/chat/completions (Ollama,
// vLLM, llama.cpp server, …) and the reply back, streaming event by event. Retries,
// cancellation and timeouts stay in the gateway's http.Client, unchanged.
package providers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// OpenAI translates to an OpenAI-compatible chat-completions server.
type OpenAI struct {
	Base string // e.g. http://127.0.0.1:11434/v1 (OPENAI_BASE_URL)
	Key  string // OPENAI_API_KEY, may be empty for local servers
	Next http.RoundTripper
}

// anthropicRequest is the subset of the Messages API the gateway sends upstream.
type anthropicRequest struct {
	Model       string          `json:"model"`
	MaxTokens   int             `json:"max_tokens"`
	Temperature *float64        `json:"temperature,omitempty"`
	System      json.RawMessage `json:"system,omitempty"`
	Messages    []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Stream bool `json:"stream"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// flatten turns Anthropic content (a string or an array of blocks) into plain text;
// only text blocks carry meaning for the gateway's uses.
func flatten(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Type == "text" {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(bl.Text)
		}
	}
	return b.String()
}

// ToChat builds the chat-completions body for an Anthropic request body.
func ToChat(body []byte) ([]byte, anthropicRequest, error) {
	var in anthropicRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, in, err
	}
	var msgs []chatMessage
	if sys := flatten(in.System); sys != "" {
		msgs = append(msgs, chatMessage{"system", sys})
	}
	for _, m := range in.Messages {
		msgs = append(msgs, chatMessage{m.Role, flatten(m.Content)})
	}
	out := map[string]any{"model": in.Model, "messages": msgs, "max_tokens": in.MaxTokens, "stream": in.Stream}
	if in.Temperature != nil {
		out["temperature"] = *in.Temperature
	}
	if in.Stream {
		out["stream_options"] = map[string]bool{"include_usage": true}
	}
	b, err := json.Marshal(out)
	return b, in, err
}

// RoundTrip implements http.RoundTripper.
func (o *OpenAI) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	chat, in, err := ToChat(body)
	if err != nil {
		return nil, err
	}
	up, err := http.NewRequestWithContext(req.Context(), "POST", strings.TrimRight(o.Base, "/")+"/chat/completions", bytes.NewReader(chat))
	if err != nil {
		return nil, err
	}
	up.Header.Set("Content-Type", "application/json")
	if o.Key != "" {
		up.Header.Set("Authorization", "Bearer "+o.Key)
	}
	next := o.Next
	if next == nil {
		next = http.DefaultTransport
	}
	res, err := next.RoundTrip(up)
	if err != nil {
		return nil, err
	}
	out := &http.Response{StatusCode: res.StatusCode, Status: res.Status, Header: http.Header{}, Request: req,
		Proto: res.Proto, ProtoMajor: res.ProtoMajor, ProtoMinor: res.ProtoMinor}
	if ra := res.Header.Get("Retry-After"); ra != "" {
		out.Header.Set("Retry-After", ra)
	}
	switch {
	case res.StatusCode != http.StatusOK:
		raw, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		res.Body.Close()
		out.Header.Set("Content-Type", "application/json")
		out.Body = io.NopCloser(bytes.NewReader(ErrorBody(res.StatusCode, raw)))
	case in.Stream:
		out.Header.Set("Content-Type", "text/event-stream")
		pr, pw := io.Pipe()
		go translateStream(res.Body, pw, in.Model)
		out.Body = &pipeBody{pr, res.Body}
	default:
		raw, err := io.ReadAll(io.LimitReader(res.Body, 8<<20))
		res.Body.Close()
		if err != nil {
			return nil, err
		}
		msg, err := FromChat(raw, in.Model)
		if err != nil {
			out.StatusCode, out.Status = http.StatusBadGateway, "502 Bad Gateway"
			msg = ErrorBody(http.StatusBadGateway, []byte(`{"error":{"message":"the OpenAI-compatible server sent an unreadable reply"}}`))
		}
		out.Header.Set("Content-Type", "application/json")
		out.Body = io.NopCloser(bytes.NewReader(msg))
	}
	out.ContentLength = -1
	return out, nil
}

// pipeBody closes the upstream too, so a client that stops reading ends the upstream call.
type pipeBody struct {
	*io.PipeReader
	up io.Closer
}

func (p *pipeBody) Close() error {
	p.up.Close()
	return p.PipeReader.Close()
}

func stopReason(finish string) string {
	switch finish {
	case "length":
		return "max_tokens"
	case "tool_calls", "function_call":
		return "tool_use"
	}
	return "end_turn"
}

// FromChat turns a chat-completions reply into an Anthropic message.
func FromChat(raw []byte, model string) ([]byte, error) {
	var r struct {
		ID      string `json:"id"`
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			Prompt     int `json:"prompt_tokens"`
			Completion int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	if len(r.Choices) == 0 {
		return nil, fmt.Errorf("no choices")
	}
	return json.Marshal(map[string]any{
		"id": "msg_" + r.ID, "type": "message", "role": "assistant", "model": model,
		"content":     []map[string]string{{"type": "text", "text": r.Choices[0].Message.Content}},
		"stop_reason": stopReason(r.Choices[0].FinishReason), "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": r.Usage.Prompt, "output_tokens": r.Usage.Completion},
	})
}

// ErrorBody renders an upstream error in Anthropic's shape, keeping its message.
func ErrorBody(status int, raw []byte) []byte {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(raw, &e)
	msg := e.Error.Message
	if msg == "" {
		msg = "upstream error " + strconv.Itoa(status)
	}
	typ := "api_error"
	switch {
	case status == 400 || status == 422:
		typ = "invalid_request_error"
	case status == 401:
		typ = "authentication_error"
	case status == 403:
		typ = "permission_error"
	case status == 404:
		typ = "not_found_error"
	case status == 429:
		typ = "rate_limit_error"
	case status == 503 || status == 529:
		typ = "overloaded_error"
	}
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": msg}})
	return b
}

// translateStream reads OpenAI chunks ("data: {…}" lines, then "data: [DONE]") and
// writes the Anthropic event sequence, one event per write so the relay flushes each.
func translateStream(up io.ReadCloser, w *io.PipeWriter, model string) {
	defer up.Close()
	emit := func(typ string, v map[string]any) error {
		v["type"] = typ
		b, _ := json.Marshal(v)
		_, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
		return err
	}
	started := false
	start := func(id string, in int) error {
		started = true
		if err := emit("message_start", map[string]any{"message": map[string]any{"id": "msg_" + id, "type": "message", "role": "assistant",
			"model": model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil,
			"usage": map[string]int{"input_tokens": in, "output_tokens": 0}}}); err != nil {
			return err
		}
		return emit("content_block_start", map[string]any{"index": 0, "content_block": map[string]string{"type": "text", "text": ""}})
	}
	finish, outTokens := "", 0
	sc := bufio.NewScanner(up)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		data, ok := strings.CutPrefix(line, "data:")
		if !ok {
			continue
		}
		data = strings.TrimSpace(data)
		if data == "[DONE]" {
			break
		}
		var c struct {
			ID      string `json:"id"`
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage *struct {
				Prompt     int `json:"prompt_tokens"`
				Completion int `json:"completion_tokens"`
			} `json:"usage"`
		}
		if json.Unmarshal([]byte(data), &c) != nil {
			continue
		}
		if !started {
			in := 0
			if c.Usage != nil {
				in = c.Usage.Prompt
			}
			if start(c.ID, in) != nil {
				return
			}
		}
		if c.Usage != nil {
			outTokens = c.Usage.Completion
		}
		for _, ch := range c.Choices {
			if ch.Delta.Content != "" {
				if emit("content_block_delta", map[string]any{"index": 0, "delta": map[string]string{"type": "text_delta", "text": ch.Delta.Content}}) != nil {
					return
				}
			}
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				finish = *ch.FinishReason
			}
		}
	}
	if err := sc.Err(); err != nil {
		_ = emit("error", map[string]any{"error": map[string]string{"type": "api_error", "message": "the OpenAI-compatible stream broke off"}})
		w.CloseWithError(err)
		return
	}
	if !started && start("openai", 0) != nil {
		return
	}
	_ = emit("content_block_stop", map[string]any{"index": 0})
	_ = emit("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stopReason(finish), "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": outTokens}})
	_ = emit("message_stop", map[string]any{})
	w.Close()
}
