package providers_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"casus/server/internal/aigw/aitest"
	"casus/server/internal/aigw/providers"
)

func setup(t *testing.T) (*aitest.OpenAIFake, *http.Client) {
	f, err := aitest.StartOpenAI("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f, &http.Client{Transport: &providers.OpenAI{Base: f.URL, Key: "sk-local"}}
}

func post(t *testing.T, ctx context.Context, c *http.Client, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "POST", "http://anthropic.invalid/v1/messages", strings.NewReader(body))
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestJSONTranslation(t *testing.T) {
	f, c := setup(t)
	f.Script(aitest.Reply{Text: "Calificarea faptelor vine întâi."})
	res := post(t, context.Background(), c, `{"model":"llama3","max_tokens":1024,"temperature":0.1,
		"system":"Ești tutorele Casus.","messages":[{"role":"user","content":[{"type":"text","text":"De unde"},{"type":"text","text":"încep?"}]},
		{"role":"assistant","content":"Ce crezi?"},{"role":"user","content":"Nu știu."}]}`)
	defer res.Body.Close()
	var msg struct {
		StopReason string `json:"stop_reason"`
		Content    []struct{ Type, Text string }
		Usage      struct {
			In  int `json:"input_tokens"`
			Out int `json:"output_tokens"`
		}
	}
	raw, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(raw, &msg); err != nil || res.StatusCode != 200 {
		t.Fatalf("%d %s", res.StatusCode, raw)
	}
	if msg.Content[0].Text != "Calificarea faptelor vine întâi." || msg.StopReason != "end_turn" || msg.Usage.In != 7 || msg.Usage.Out != 4 {
		t.Fatalf("reply %s", raw)
	}
	got := f.Requests()[0]
	want := `[{"content":"Ești tutorele Casus.","role":"system"},{"content":"De unde\nîncep?","role":"user"},{"content":"Ce crezi?","role":"assistant"},{"content":"Nu știu.","role":"user"}]`
	if b, _ := json.Marshal(got["messages"]); string(b) != want {
		t.Fatalf("messages %s", b)
	}
	if got["model"] != "llama3" || got["max_tokens"] != float64(1024) || got["temperature"] != 0.1 || got["_auth"] != "Bearer sk-local" {
		t.Fatalf("request %v", got)
	}
}

func TestErrorsKeepStatusInAnthropicShape(t *testing.T) {
	f, c := setup(t)
	for status, typ := range map[int]string{429: "rate_limit_error", 500: "api_error", 503: "overloaded_error", 400: "invalid_request_error"} {
		f.Script(aitest.Reply{Status: status, RetryAfter: "1"})
		res := post(t, context.Background(), c, `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"}]}`)
		var e struct {
			Type  string
			Error struct{ Type, Message string }
		}
		_ = json.NewDecoder(res.Body).Decode(&e)
		res.Body.Close()
		if res.StatusCode != status || e.Type != "error" || e.Error.Type != typ || e.Error.Message != "scripted "+itoa(status) || res.Header.Get("Retry-After") != "1" {
			t.Fatalf("%d: %d %+v %v", status, res.StatusCode, e, res.Header)
		}
	}
	f.Script(aitest.Reply{Raw: "not json"})
	res := post(t, context.Background(), c, `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"}]}`)
	res.Body.Close()
	if res.StatusCode != 502 {
		t.Fatalf("malformed reply: %d", res.StatusCode)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestStreamingEventByEvent(t *testing.T) {
	f, c := setup(t)
	f.Script(aitest.Reply{Text: "Unu doi trei patru", DelayMS: 60})
	start := time.Now()
	res := post(t, context.Background(), c, `{"model":"m","max_tokens":50,"stream":true,"messages":[{"role":"user","content":"x"}]}`)
	defer res.Body.Close()
	if res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatal(res.Header)
	}
	if f.Requests()[0]["stream"] != true {
		t.Fatal("upstream not asked to stream")
	}
	var types []string
	var text strings.Builder
	var firstDelta time.Duration
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type  string
			Delta struct {
				Text       string
				StopReason string `json:"stop_reason"`
			}
			Usage struct {
				Out int `json:"output_tokens"`
			}
		}
		_ = json.Unmarshal([]byte(data), &ev)
		types = append(types, ev.Type)
		if ev.Type == "content_block_delta" {
			if firstDelta == 0 {
				firstDelta = time.Since(start)
			}
			text.WriteString(ev.Delta.Text)
		}
		if ev.Type == "message_delta" && (ev.Delta.StopReason != "end_turn" || ev.Usage.Out != 4) {
			t.Fatalf("message_delta %s", data)
		}
	}
	total := time.Since(start)
	want := "message_start content_block_start content_block_delta content_block_delta content_block_delta content_block_delta content_block_stop message_delta message_stop"
	if strings.Join(types, " ") != want || text.String() != "Unu doi trei patru" {
		t.Fatalf("events %v text %q", types, text.String())
	}
	// The first word arrives while the upstream is still producing the rest.
	if firstDelta > total/2 {
		t.Fatalf("first delta after %s of %s: buffered", firstDelta, total)
	}
}

func TestStreamCancelStopsUpstream(t *testing.T) {
	f, c := setup(t)
	f.Script(aitest.Reply{Text: strings.Repeat("cuvânt ", 100), DelayMS: 50})
	ctx, cancel := context.WithCancel(context.Background())
	res := post(t, ctx, c, `{"model":"m","max_tokens":50,"stream":true,"messages":[{"role":"user","content":"x"}]}`)
	buf := make([]byte, 256)
	if _, err := res.Body.Read(buf); err != nil {
		t.Fatal(err)
	}
	cancel()
	done := make(chan error, 1)
	go func() { _, err := io.ReadAll(res.Body); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("stream completed after cancel")
		}
	case <-time.After(2 * time.Second):
		t.Fatal("stream kept running after cancel")
	}
	res.Body.Close()
}
