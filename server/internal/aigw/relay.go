package aigw

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
)

// relaySSE passes the upstream's server-sent events to the browser unchanged, flushing
// at the end of each event, and returns the tokens the stream reported (input tokens in
// message_start, output tokens in message_delta) so streamed calls count toward the
// daily token quota like JSON ones, the text of its deltas (the tutor records its
// replies), and whether it reached message_stop with the browser still there. A stream
// that breaks off before message_stop (or its own error event) ends with an error event,
// as the Messages API reports errors once a stream has started, so the SDK raises an API
// error instead of a truncated reply.
func relaySSE(w http.ResponseWriter, res *http.Response) (tokens int, text string, complete bool) {
	defer res.Body.Close()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no") // a reverse proxy must not buffer either
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	in, out := 0, 0
	ended := false // message_stop or an error event was relayed
	var sb strings.Builder
	br := bufio.NewReaderSize(res.Body, 16<<10)
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// An oversized line: pass it on in pieces; only the usage parse is skipped.
			if _, werr := w.Write(line); werr != nil {
				return in + out, sb.String(), false
			}
			continue
		}
		if len(line) > 0 {
			complete = complete || bytes.HasPrefix(line, []byte("event: message_stop"))
			if bytes.HasPrefix(line, []byte("data:")) {
				data := line[5:]
				if bytes.Contains(data, []byte(`"usage"`)) {
					in, out = usageOf(data, in, out)
				}
				if bytes.Contains(data, []byte(`"text_delta"`)) {
					sb.WriteString(deltaText(data))
				}
				complete = complete || bytes.Contains(data, []byte(`"type":"message_stop"`))
			}
			if bytes.HasPrefix(line, []byte("event:")) {
				ev := string(bytes.TrimSpace(line[6:]))
				ended = ended || ev == "message_stop" || ev == "error"
			}
			if _, werr := w.Write(line); werr != nil {
				return in + out, sb.String(), false // the browser went away; closing the body cancels upstream
			}
			if flusher != nil && (len(bytes.TrimSpace(line)) == 0 || err != nil) {
				flusher.Flush()
			}
		}
		if err != nil {
			if !ended && res.Request.Context().Err() == nil {
				_, _ = w.Write(streamBroken)
			}
			if flusher != nil {
				flusher.Flush()
			}
			return in + out, sb.String(), complete
		}
	}
}

var streamBroken = []byte("\nevent: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Furnizorul AI nu răspunde. Încearcă din nou.\"}}\n\n")

// deltaText reads the text of a content_block_delta event.
func deltaText(data []byte) string {
	var ev struct {
		Delta struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"delta"`
	}
	if json.Unmarshal(data, &ev) != nil || ev.Delta.Type != "text_delta" {
		return ""
	}
	return ev.Delta.Text
}

// usageOf reads the usage of a message_start or message_delta event.
func usageOf(data []byte, in, out int) (int, int) {
	var ev struct {
		Message struct {
			Usage struct {
				In int `json:"input_tokens"`
			} `json:"usage"`
		} `json:"message"`
		Usage *struct {
			In  int `json:"input_tokens"`
			Out int `json:"output_tokens"`
		} `json:"usage"`
	}
	if json.Unmarshal(data, &ev) != nil {
		return in, out
	}
	if ev.Message.Usage.In > 0 {
		in = ev.Message.Usage.In
	}
	if ev.Usage != nil {
		if ev.Usage.In > 0 {
			in = ev.Usage.In
		}
		if ev.Usage.Out > 0 {
			out = ev.Usage.Out // cumulative in the Messages API
		}
	}
	return in, out
}
