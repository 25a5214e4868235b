// Package aitest is a scripted fake of the Anthropic Messages API, for tests and demos
// (`casus fake-ai`). Replies are queued through Script (or POST /_script, cleared by
// POST /_reset); with none queued it answers each use plausibly: a passing AI check, a parsable grade, a Socratic
// question. Requests are recorded (GET /_requests): all of them, or the last
// RecordAtMost (`casus fake-ai --record`). Latency (SetLatency, or
// --delay/--stream-delay) makes unscripted replies take a model's time; a scripted Fault
// breaks the transport (a reset connection, a hang, a stream cut short).
package aitest

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Reply is one scripted answer.
type Reply struct {
	Status     int    `json:"status"`      // default 200
	Text       string `json:"text"`        // the assistant text
	Raw        string `json:"raw"`         // a raw body instead (malformed content)
	RetryAfter string `json:"retry_after"` // header on errors
	DelayMS    int    `json:"delay_ms"`    // between stream events, or before a JSON reply
	Fault      string `json:"fault"`       // "reset", "hang" or "cut" (see the Fault constants)
}

// Transport faults a Reply can script.
const (
	// FaultReset closes the connection before any response: the client sees a reset.
	FaultReset = "reset"
	// FaultHang never answers: the request ends only when the client gives up.
	FaultHang = "hang"
	// FaultCut sends the status, headers and part of the body (for a stream, its first
	// events), then closes the connection.
	FaultCut = "cut"
)

// Fake is a running fake upstream.
type Fake struct {
	URL      string
	mu       sync.Mutex
	queue    []Reply
	requests []map[string]any
	// record bounds requests to the most recent ones; negative keeps every one. A load
	// run sends tens of thousands of prompts that nothing reads: kept, the fake's memory
	// grew with the run.
	record   int
	srv      *http.Server
	inflight sync.WaitGroup
	// Cancelled counts requests whose client went away mid-reply.
	Cancelled int
	// Latency of unscripted replies: before a JSON reply, and between stream events.
	jsonDelay, streamDelay time.Duration
	// Every faultEvery-th unscripted request gets the next of faults instead.
	faultEvery, served int
	faults             []Reply
	onReply            func(system string)
	// Replies wait until holdFor more requests have arrived (holdOpen closes then).
	holdFor  int
	holdOpen chan struct{}
}

// HoldUntil makes replies wait until n more requests have arrived (or 5 s pass), so
// that n calls are sure to be at the provider at the same time (races in tests).
func (f *Fake) HoldUntil(n int) {
	f.mu.Lock()
	f.holdFor, f.holdOpen = n, make(chan struct{})
	f.mu.Unlock()
}

// SetFaults makes every n-th unscripted request (n > 0; 0 turns it off) fail with the
// next of faults in turn, each keeping the plausible text of its use (for FaultCut).
func (f *Fake) SetFaults(n int, faults ...Reply) {
	f.mu.Lock()
	f.faultEvery, f.faults = n, faults
	f.mu.Unlock()
}

// OnReply registers fn, called with the request's system prompt once a JSON reply has
// been sent (the moment the server holds a reply it has not yet recorded).
func (f *Fake) OnReply(fn func(system string)) {
	f.mu.Lock()
	f.onReply = fn
	f.mu.Unlock()
}

// SetLatency makes unscripted replies take a model's time: reply before a JSON answer,
// event between the events of a stream.
func (f *Fake) SetLatency(reply, event time.Duration) {
	f.mu.Lock()
	f.jsonDelay, f.streamDelay = reply, event
	f.mu.Unlock()
}

// Start listens on addr ("127.0.0.1:0" for any port).
func Start(addr string) (*Fake, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	f := &Fake{URL: "http://" + ln.Addr().String(), record: -1}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages", f.messages)
	mux.HandleFunc("POST /_script", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Replies []Reply `json:"replies"`
		}
		if json.NewDecoder(r.Body).Decode(&body) != nil {
			http.Error(w, "bad script", 400)
			return
		}
		f.Script(body.Replies...)
		w.WriteHeader(204)
	})
	mux.HandleFunc("POST /_reset", func(w http.ResponseWriter, r *http.Request) {
		f.Reset()
		w.WriteHeader(204)
	})
	mux.HandleFunc("GET /_requests", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(f.Requests())
	})
	f.srv = &http.Server{Handler: mux}
	go func() { _ = f.srv.Serve(ln) }()
	return f, nil
}

// RecordAtMost keeps only the n most recent requests (n < 0: all of them).
func (f *Fake) RecordAtMost(n int) {
	f.mu.Lock()
	f.record = n
	f.requests = trimRecorded(f.requests, n)
	f.mu.Unlock()
}

// trimRecorded drops all but the n most recent requests (n < 0: none).
func trimRecorded(reqs []map[string]any, n int) []map[string]any {
	if n < 0 || len(reqs) <= n {
		return reqs
	}
	return append([]map[string]any(nil), reqs[len(reqs)-n:]...)
}

// Close stops the server.
func (f *Fake) Close() { _ = f.srv.Close() }

// Script queues replies, used in order.
func (f *Fake) Script(r ...Reply) {
	f.mu.Lock()
	f.queue = append(f.queue, r...)
	f.mu.Unlock()
}

// CancelledCount is Cancelled read under the lock (handlers update it concurrently).
func (f *Fake) CancelledCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.Cancelled
}

// Reset drops queued replies and recorded requests (between browser tests).
func (f *Fake) Reset() {
	f.mu.Lock()
	f.queue, f.requests, f.Cancelled = nil, nil, 0
	f.mu.Unlock()
}

// Requests returns the recorded request bodies.
func (f *Fake) Requests() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), trimRecorded(f.requests, f.record)...)
}

// decode reads a request body: whole when requests are recorded, otherwise only the
// fields the reply depends on (a prompt is tens of kilobytes of messages).
func (f *Fake) decode(r *http.Request) map[string]any {
	f.mu.Lock()
	record := f.record
	f.mu.Unlock()
	if record != 0 {
		var req map[string]any
		_ = json.NewDecoder(r.Body).Decode(&req)
		return req
	}
	var req struct {
		Model  string `json:"model"`
		System any    `json:"system"`
		Stream bool   `json:"stream"`
	}
	_ = json.NewDecoder(r.Body).Decode(&req)
	return map[string]any{"model": req.Model, "system": req.System, "stream": req.Stream}
}

// gradeProblemRe finds the problems a grading prompt lists ("P1. …").
var gradeProblemRe = regexp.MustCompile(`(?m)^P\d+\. `)

// GradeJSON is a grader's reply in the prompt's JSON form, scoring the ten rubric items
// as given (1.1–1.6, 2.1, 2.2.1, 2.2.2, 2.2.3) with every problem of a multi-problem case
// scored alike, so the weighted items come out as given. Each item's points are spread
// over its sub-items, filling them in order; evidence quotes "Soluția".
func GradeJSON(problems int, s [10]int) string {
	if problems < 1 {
		problems = 1
	}
	spread := func(n int, maxima ...int) []int {
		out := make([]int, len(maxima))
		for i, m := range maxima {
			out[i] = min(n, m)
			n -= out[i]
		}
		return out
	}
	var items []string
	part1 := [][2]any{{"1.1", 5}, {"1.2", 8}, {"1.3", 5}, {"1.4", 7}, {"1.5", 10}, {"1.6", 5}}
	for i, c := range part1 {
		items = append(items, fmt.Sprintf(`{"cod": %q, "dovezi": ["Soluția"], "motiv": "motivul pentru %s.", "puncte": {"punctaj": %d}}`, c[0], c[0], min(s[i], c[1].(int))))
	}
	in := spread(s[6], 3, 4, 3)
	items = append(items, fmt.Sprintf(`{"cod": "2.1", "dovezi": [], "motiv": "introducerea.", "puncte": {"fapte": %d, "calificare": %d, "probleme": %d}}`, in[0], in[1], in[2]))
	for p := 1; p <= problems; p++ {
		ma, mi, co := spread(s[7], 5, 5, 5, 5), spread(s[8], 5, 5, 5), spread(s[9], 5, 5, 5)
		items = append(items,
			fmt.Sprintf(`{"cod": "2.2.1", "problema": %d, "ruta": "aceeași rută", "dovezi": [], "motiv": "premisa majoră.", "puncte": {"izvoare": %d, "relevanta": %d, "completitudine": %d, "interpretare": %d}}`, p, ma[0], ma[1], ma[2], ma[3]),
			fmt.Sprintf(`{"cod": "2.2.2", "problema": %d, "dovezi": [], "motiv": "premisa minoră.", "puncte": {"fapte": %d, "conectare": %d, "probe": %d}}`, p, mi[0], mi[1], mi[2]),
			fmt.Sprintf(`{"cod": "2.2.3", "problema": %d, "dovezi": [], "motiv": "concluzia.", "puncte": {"logica": %d, "claritate": %d, "completitudine": %d}}`, p, co[0], co[1], co[2]))
	}
	return "{\"itemi\": [\n" + strings.Join(items, ",\n") + "\n], \"puncte_forte\": \"analiză corectă\", \"de_imbunatatit\": \"premisa minoră sumară\"}"
}

// DefaultReply is the text the fake answers, unscripted, to a request with this system prompt.
func DefaultReply(system string) string { return defaultReply(system).Text }

func defaultReply(system string) Reply {
	switch {
	// A grading prompt is known by its answer format; it lists the problems to score.
	case strings.Contains(system, `"itemi"`):
		seen := map[string]bool{}
		for _, p := range gradeProblemRe.FindAllString(system, -1) {
			seen[p] = true // the list, and again with its weights in the reference
		}
		return Reply{Text: GradeJSON(len(seen), [10]int{5, 7, 4, 6, 8, 4, 8, 17, 10, 9})}
	// Detection by its answer format.
	case strings.Contains(system, `"indicii"`):
		return Reply{Text: `{"indicii": [], "decision": "PASSED", "justification": "Niciun indiciu: stil personal, cu ezitări specifice unui student."}`}
	case strings.Contains(system, "JSON") && strings.Contains(system, "case_description"):
		return Reply{Text: "```json\n{\"title\": \"Caz generat despre răspunderea civilă delictuală pentru fapta proprie\", \"legal_problem\": \"Se pune problema răspunderii.\", \"case_description\": \"Ion a lovit mașina lui Vasile.\", \"question\": \"Răspunde Ion?\", \"analysis_steps\": [{\"step_number\": 1, \"description\": \"Identifică fapta\"}], \"hints\": [{\"hint_number\": 1, \"text\": \"Art. 1357\"}], \"model_answer\": \"Introducere. Ion a lovit mașina lui Vasile. Problema: răspunde Ion pentru prejudiciu?\\n\\nPremisa majoră. Art. 1357 C.civ. cere faptă ilicită, prejudiciu, legătură de cauzalitate și vinovăție.\\n\\nPremisa minoră. Condițiile sunt îndeplinite.\\n\\nConcluzie. Ion răspunde.\"}\n```"}
	case strings.Contains(system, "Clasifică"):
		return Reply{Text: `{"category": "Altele", "subcategory": ""}`}
	}
	return Reply{Text: "Ce normă crezi că se aplică faptelor din speță?"}
}

func (f *Fake) messages(w http.ResponseWriter, r *http.Request) {
	req := f.decode(r)
	f.mu.Lock()
	if f.record != 0 {
		f.requests = append(f.requests, req)
		if f.record > 0 && len(f.requests) >= 2*f.record {
			f.requests = trimRecorded(f.requests, f.record)
		}
	}
	hold := f.holdOpen
	if f.holdFor > 0 {
		if f.holdFor--; f.holdFor == 0 {
			close(f.holdOpen)
		}
	}
	var rep Reply
	stream, _ := req["stream"].(bool)
	if len(f.queue) > 0 {
		rep, f.queue = f.queue[0], f.queue[1:]
	} else {
		sys, _ := req["system"].(string)
		rep = defaultReply(sys)
		rep.DelayMS = int(f.jsonDelay / time.Millisecond)
		if stream {
			rep.DelayMS = int(f.streamDelay / time.Millisecond)
		}
		f.served++
		if f.faultEvery > 0 && len(f.faults) > 0 && f.served%f.faultEvery == 0 {
			fault := f.faults[(f.served/f.faultEvery-1)%len(f.faults)]
			if fault.Text == "" {
				fault.Text = rep.Text
			}
			rep = fault
		}
	}
	onReply := f.onReply
	f.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
			return
		}
	}
	switch rep.Fault {
	case FaultReset:
		reset(w)
		return
	case FaultHang:
		<-r.Context().Done()
		f.mu.Lock()
		f.Cancelled++
		f.mu.Unlock()
		return
	}
	if rep.Status != 0 && rep.Status != 200 {
		if rep.RetryAfter != "" {
			w.Header().Set("retry-after", rep.RetryAfter)
		}
		if rep.Raw != "" { // what a proxy in front of the provider might answer
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(rep.Status)
			_, _ = w.Write([]byte(rep.Raw))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.Status)
		typ := map[int]string{429: "rate_limit_error", 529: "overloaded_error", 400: "invalid_request_error"}[rep.Status]
		if typ == "" {
			typ = "api_error"
		}
		fmt.Fprintf(w, `{"type":"error","error":{"type":%q,"message":"scripted %d"}}`, typ, rep.Status)
		return
	}
	model, _ := req["model"].(string)
	if stream {
		f.stream(w, r, model, rep)
		return
	}
	if rep.DelayMS > 0 {
		select {
		case <-time.After(time.Duration(rep.DelayMS) * time.Millisecond):
		case <-r.Context().Done():
			f.mu.Lock()
			f.Cancelled++
			f.mu.Unlock()
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if rep.Raw != "" {
		_, _ = w.Write([]byte(rep.Raw))
		return
	}
	body, _ := json.Marshal(map[string]any{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
		"content": []map[string]string{{"type": "text", "text": rep.Text}}, "stop_reason": "end_turn", "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": 10, "output_tokens": len(strings.Fields(rep.Text))},
	})
	if rep.Fault == FaultCut {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body[:len(body)/2])
		_ = http.NewResponseController(w).Flush()
		reset(w)
		return
	}
	_, _ = w.Write(body)
	if onReply != nil {
		_ = http.NewResponseController(w).Flush()
		sys, _ := req["system"].(string)
		onReply(sys)
	}
}

// reset closes the request's connection at once, with a TCP reset (linger 0), without
// letting net/http finish the response.
func reset(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

func (f *Fake) stream(w http.ResponseWriter, r *http.Request, model string, rep Reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	fl, _ := w.(http.Flusher)
	send := func(e map[string]any) bool {
		b, _ := json.Marshal(e)
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e["type"], b); err != nil {
			return false
		}
		if fl != nil {
			fl.Flush()
		}
		if rep.DelayMS > 0 {
			select {
			case <-time.After(time.Duration(rep.DelayMS) * time.Millisecond):
			case <-r.Context().Done():
				f.mu.Lock()
				f.Cancelled++
				f.mu.Unlock()
				return false
			}
		}
		return true
	}
	if !send(map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_fake", "type": "message", "role": "assistant", "model": model, "content": []any{}, "stop_reason": nil, "usage": map[string]int{"input_tokens": 10, "output_tokens": 0}}}) {
		return
	}
	send(map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]string{"type": "text", "text": ""}})
	for i, word := range strings.SplitAfter(rep.Text, " ") {
		if rep.Fault == FaultCut && i == 2 {
			reset(w)
			return
		}
		if !send(map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]string{"type": "text_delta", "text": word}}) {
			return
		}
	}
	send(map[string]any{"type": "content_block_stop", "index": 0})
	send(map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil}, "usage": map[string]int{"output_tokens": len(strings.Fields(rep.Text))}})
	send(map[string]any{"type": "message_stop"})
}

// Main runs `casus fake-ai --addr 127.0.0.1:PORT` until ctx ends.
func Main(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("fake-ai", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8099", "listen address (loopback)")
	delay := fs.Duration("delay", 0, "latency of an unscripted JSON reply (e.g. 2s, a model's grading time)")
	streamDelay := fs.Duration("stream-delay", 0, "pause between the events of an unscripted stream (e.g. 30ms)")
	record := fs.Int("record", -1, "requests kept for GET /_requests, the most recent (negative: all; a load run: 0)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	f, err := Start(*addr)
	if err != nil {
		return err
	}
	f.SetLatency(*delay, *streamDelay)
	f.RecordAtMost(*record)
	fmt.Println("fake Messages API on", f.URL)
	<-ctx.Done()
	f.Close()
	return nil
}
