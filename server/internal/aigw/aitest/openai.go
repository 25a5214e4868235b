package aitest

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// OpenAIFake is a scripted OpenAI-compatible chat-completions server (as Ollama, vLLM
// or llama.cpp expose), for testing the gateway's translation. Same Reply scripts.
type OpenAIFake struct {
	URL      string // base URL including /v1
	mu       sync.Mutex
	queue    []Reply
	requests []map[string]any
	srv      *http.Server
}

// StartOpenAI listens on addr ("127.0.0.1:0" for any port).
func StartOpenAI(addr string) (*OpenAIFake, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	f := &OpenAIFake{URL: "http://" + ln.Addr().String() + "/v1"}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", f.completions)
	f.srv = &http.Server{Handler: mux}
	go func() { _ = f.srv.Serve(ln) }()
	return f, nil
}

// Close stops the server.
func (f *OpenAIFake) Close() { _ = f.srv.Close() }

// Script queues replies, used in order.
func (f *OpenAIFake) Script(r ...Reply) {
	f.mu.Lock()
	f.queue = append(f.queue, r...)
	f.mu.Unlock()
}

// Requests returns the recorded request bodies (with the Authorization header under "_auth").
func (f *OpenAIFake) Requests() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.requests...)
}

func (f *OpenAIFake) completions(w http.ResponseWriter, r *http.Request) {
	var req map[string]any
	_ = json.NewDecoder(r.Body).Decode(&req)
	if req == nil {
		req = map[string]any{}
	}
	req["_auth"] = r.Header.Get("Authorization")
	f.mu.Lock()
	f.requests = append(f.requests, req)
	rep := Reply{Text: "Ce normă crezi că se aplică?"}
	if len(f.queue) > 0 {
		rep, f.queue = f.queue[0], f.queue[1:]
	}
	f.mu.Unlock()
	if rep.Status != 0 && rep.Status != 200 {
		if rep.RetryAfter != "" {
			w.Header().Set("Retry-After", rep.RetryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.Status)
		if rep.Raw != "" { // a provider's own error body
			_, _ = w.Write([]byte(rep.Raw))
			return
		}
		fmt.Fprintf(w, `{"error":{"message":"scripted %d","type":"server_error","code":null}}`, rep.Status)
		return
	}
	model, _ := req["model"].(string)
	words := strings.SplitAfter(rep.Text, " ")
	if stream, _ := req["stream"].(bool); !stream {
		w.Header().Set("Content-Type", "application/json")
		if rep.Raw != "" {
			_, _ = w.Write([]byte(rep.Raw))
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion", "model": model,
			"choices": []map[string]any{{"index": 0, "message": map[string]string{"role": "assistant", "content": rep.Text}, "finish_reason": "stop"}},
			"usage":   map[string]int{"prompt_tokens": 7, "completion_tokens": len(words), "total_tokens": 7 + len(words)},
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fl, _ := w.(http.Flusher)
	send := func(v any) bool {
		b, _ := json.Marshal(v)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		fl.Flush()
		if rep.DelayMS > 0 {
			select {
			case <-time.After(time.Duration(rep.DelayMS) * time.Millisecond):
			case <-r.Context().Done():
				return false
			}
		}
		return true
	}
	chunk := func(delta map[string]string, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": model,
			"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	if !send(chunk(map[string]string{"role": "assistant"}, nil)) {
		return
	}
	for _, word := range words {
		if !send(chunk(map[string]string{"content": word}, nil)) {
			return
		}
	}
	send(chunk(map[string]string{}, "stop"))
	send(map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "choices": []any{},
		"usage": map[string]int{"prompt_tokens": 7, "completion_tokens": len(words)}})
	fmt.Fprint(w, "data: [DONE]\n\n")
	fl.Flush()
}
