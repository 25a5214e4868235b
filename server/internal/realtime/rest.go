package realtime

import (
	"encoding/json"
	"net/http"
	"strings"

	"casus/server/internal/authn"
	"casus/server/internal/httpx"
)

type restError struct {
	status int
	msg    string
}

func (e *restError) Error() string { return e.msg }

func (e *restError) Render(w http.ResponseWriter, _ *http.Request) {
	httpx.WriteJSON(w, e.status, map[string]string{"message": e.msg})
}

// restBroadcast sends broadcast messages over HTTP, as Supabase's
// POST /realtime/v1/api/broadcast does; only the service role may use it here.
func (s *Server) restBroadcast(w http.ResponseWriter, r *http.Request) error {
	req, err := s.d.Keys.FromRequest(r)
	if err != nil {
		return &restError{http.StatusUnauthorized, "Invalid API key or token"}
	}
	if req.Claims.Role != authn.RoleServiceRole {
		return &restError{http.StatusForbidden, "Broadcasting over HTTP needs the service role key"}
	}
	var body struct {
		Messages []struct {
			Topic   string          `json:"topic"`
			Event   string          `json:"event"`
			Payload json.RawMessage `json:"payload"`
			Private bool            `json:"private"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&body); err != nil || len(body.Messages) == 0 {
		return &restError{http.StatusBadRequest, "Body must be {\"messages\": [{\"topic\", \"event\", \"payload\"}]}"}
	}
	for _, m := range body.Messages {
		if m.Topic == "" || m.Event == "" {
			return &restError{http.StatusBadRequest, "Every message needs a topic and an event"}
		}
	}
	for _, m := range body.Messages {
		topic := m.Topic
		if !strings.HasPrefix(topic, "realtime:") {
			topic = "realtime:" + topic
		}
		payload := m.Payload
		if len(payload) == 0 {
			payload = json.RawMessage("{}")
		}
		p, _ := json.Marshal(map[string]any{"type": "broadcast", "event": m.Event, "payload": payload})
		s.bus.publishBroadcast(topic, p, nil)
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}
