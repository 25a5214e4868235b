package aigw_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"casus/server/internal/aigw/aitest"
)

// Through realtime, a student subscribed to every change of the model answers and of
// their own submissions receives no model answer: the table streams nothing to them, and
// the grade that lands on their submission carries no line of the reference.
func TestReferenceNeverStreamedByRealtime(t *testing.T) {
	e := start(t, nil)
	e.withReference()
	a := e.token(userA)
	u := strings.Replace(e.srv.URL, "http", "ws", 1) + "/realtime/v1/websocket?" + url.Values{"apikey": {e.srv.Deps.Keys.AnonKey}, "vsn": {"2.0.0"}}.Encode()
	ws, _, err := websocket.DefaultDialer.Dial(u, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	frames := make(chan []any, 100)
	go func() {
		for {
			_, data, err := ws.ReadMessage()
			if err != nil {
				close(frames)
				return
			}
			var m []any
			_ = json.Unmarshal(data, &m)
			frames <- m
		}
	}()
	join := func(topic, table string) {
		sub := map[string]any{"postgres_changes": []any{map[string]any{"event": "*", "schema": "public", "table": table}}}
		if err := ws.WriteJSON([]any{"1", "1", topic, "phx_join", map[string]any{"config": sub, "access_token": a}}); err != nil {
			t.Fatal(err)
		}
	}
	join("realtime:answers", "case_model_answers")
	join("realtime:mine", "case_submissions")
	// Wait until the submissions channel is subscribed, then change the model answer and grade.
	deadline := time.After(10 * time.Second)
	var seen []string
	for subscribed := false; !subscribed; {
		select {
		case m, ok := <-frames:
			if !ok {
				t.Fatal("socket closed")
			}
			b, _ := json.Marshal(m)
			seen = append(seen, string(b))
			if m[2] == "realtime:mine" && m[3] == "system" {
				subscribed = true
			}
		case <-deadline:
			t.Fatalf("not subscribed: %v", seen)
		}
	}
	if _, err := e.srv.Deps.Owner.Exec(t.Context(), "update case_model_answers set model_answer = model_answer || ' Concluzie suplimentară secretă pentru corector.' where case_id = $1", caseID); err != nil {
		t.Fatal(err)
	}
	sub := e.submission(userA, "Ion răspunde în temeiul art. 1357 C.civ.")
	quoting := strings.Replace(gradeText(sum70), "premisa majoră.", "Ion a spart geamul lui Vasile aruncând o minge peste gard.", 1)
	e.fake.Script(passed, aitest.Reply{Text: quoting}, aitest.Reply{Text: quoting})
	e.call(a, hdr("detect", sub), map[string]any{})
	if st, _ := e.call(a, hdr("grade", sub), map[string]any{}); st != 200 {
		t.Fatal(st)
	}
	// Read every frame until the graded row arrives; none may carry the reference.
	deadline = time.After(10 * time.Second)
	for graded := false; !graded; {
		select {
		case m, ok := <-frames:
			if !ok {
				t.Fatal("socket closed")
			}
			b, _ := json.Marshal(m)
			s := string(b)
			if strings.Contains(s, "Concluzie suplimentară secretă") {
				t.Fatalf("the model answer was streamed: %s", s)
			}
			if m[2] == "realtime:answers" && m[3] == "postgres_changes" {
				t.Fatalf("a change of case_model_answers was streamed: %s", s)
			}
			if m[2] == "realtime:mine" && m[3] == "postgres_changes" && strings.Contains(s, `"status":"graded"`) {
				leaks(t, "the realtime grade event", s)
				graded = true
			}
		case <-deadline:
			t.Fatal("the graded submission was not streamed")
		}
	}
}
