package realtime

import (
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"

	"casus/server/internal/authn"
	"casus/server/internal/httpx"
)

// REST broadcast, as Supabase Realtime serves it: POST /api/broadcast (a batch) and
// POST /api/broadcast/{topic}/events/{event} (one message; realtime-js's httpSend()).
// Any valid project key or user token may send to a public topic (Supabase's AuthTenant
// plug); a topic that names accounts stays theirs (topicOpenTo), exactly as over the
// socket. Private channels (realtime.messages RLS) are not implemented: a private
// message is refused as Realtime refuses one no policy allows.

type restError struct {
	status int
	body   any
}

func (e *restError) Error() string { return http.StatusText(e.status) }

func (e *restError) Render(w http.ResponseWriter, _ *http.Request) {
	httpx.WriteJSON(w, e.status, e.body)
}

// message is Realtime's ErrorView body.
func message(status int, msg string) *restError {
	return &restError{status, map[string]string{"message": msg}}
}

// fieldError is Realtime's ChangesetView body (422).
func fieldError(field, msg string) *restError {
	return &restError{http.StatusUnprocessableEntity, map[string]any{"errors": map[string][]string{field: {msg}}}}
}

var errUnauthorized = message(http.StatusUnauthorized, "Unauthorized")

// sender is the identity of a REST broadcast.
func (s *Server) sender(r *http.Request) (*authn.Claims, error) {
	id := s.d.Keys.Identify(r)
	if id.Err() != nil {
		return nil, errUnauthorized
	}
	return id.Claims, nil
}

// mayPublishTo applies the socket's sending rule to a REST broadcast.
func (s *Server) mayPublishTo(claims *authn.Claims, topic string) bool {
	return claims.Role == authn.RoleServiceRole || s.topicOpenTo("realtime:"+topic, claims.Subject)
}

func (s *Server) publishREST(topic, event string, payload json.RawMessage) {
	p, _ := json.Marshal(map[string]any{"type": "broadcast", "event": event, "payload": payload})
	s.bus.publishBroadcast("realtime:"+topic, p, nil)
}

// restBroadcast is the batch endpoint: {"messages": [{"topic", "event", "payload", "private"}]}.
func (s *Server) restBroadcast(w http.ResponseWriter, r *http.Request) error {
	claims, err := s.sender(r)
	if err != nil {
		return err
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
		return fieldError("messages", "can't be blank")
	}
	for _, m := range body.Messages {
		if m.Topic == "" || m.Event == "" {
			return fieldError("messages", "every message needs a topic and an event")
		}
		if len(m.Payload) > s.limits.maxPayload {
			return fieldError("payload", "Payload size exceeds tenant limit")
		}
	}
	// Every message is checked before any is sent: a batch is refused whole.
	for _, m := range body.Messages {
		if m.Private || !s.mayPublishTo(claims, strings.TrimPrefix(m.Topic, "realtime:")) {
			return message(http.StatusForbidden, "Unauthorized")
		}
	}
	for _, m := range body.Messages {
		payload := m.Payload
		if len(payload) == 0 {
			payload = json.RawMessage("{}")
		}
		s.publishREST(strings.TrimPrefix(m.Topic, "realtime:"), m.Event, payload)
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}

// restBroadcastOne is the single-message endpoint httpSend() calls: the body is the
// payload, topic and event are in the path, ?private=true asks for a private topic.
func (s *Server) restBroadcastOne(w http.ResponseWriter, r *http.Request) error {
	claims, err := s.sender(r)
	if err != nil {
		return err
	}
	topic, event := r.PathValue("topic"), r.PathValue("event")
	if topic == "" || event == "" {
		return fieldError("topic", "can't be blank")
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch mt {
	case "application/json":
	case "application/octet-stream":
		return message(http.StatusUnsupportedMediaType, "Binary broadcast is not supported by this server")
	default:
		return message(http.StatusUnsupportedMediaType, "Content-Type must be application/json or application/octet-stream")
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, int64(s.limits.maxPayload)+1))
	if err != nil {
		return fieldError("payload", "can't be read")
	}
	if len(data) > s.limits.maxPayload {
		return fieldError("payload", "Payload size exceeds tenant limit")
	}
	if len(strings.TrimSpace(string(data))) == 0 || string(data) == "null" {
		return fieldError("payload", "can't be blank")
	}
	if !json.Valid(data) {
		return message(http.StatusBadRequest, "Malformed JSON body")
	}
	private := r.URL.Query().Get("private") == "true"
	if private || !s.mayPublishTo(claims, strings.TrimPrefix(topic, "realtime:")) {
		return message(http.StatusForbidden, "Unauthorized")
	}
	s.publishREST(strings.TrimPrefix(topic, "realtime:"), event, json.RawMessage(data))
	w.WriteHeader(http.StatusAccepted)
	return nil
}
