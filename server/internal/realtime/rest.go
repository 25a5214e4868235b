package realtime

import (
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"casus/server/internal/authn"
	"casus/server/internal/httpx"
)

// REST broadcast, as Supabase Realtime serves it: POST /api/broadcast (a batch) and
// POST /api/broadcast/{topic}/events/{event} (one message; realtime-js's httpSend()).
// Any valid project key or user token may send to a public topic (Supabase's AuthTenant
// plug); a topic that names accounts stays theirs (topicOpenTo), exactly as over the
// socket. A private message goes to the topic's private channels when the sender's
// realtime.messages INSERT policies allow broadcast on it (authorizeWrite), as Realtime
// decides; the single endpoint answers 403 otherwise, the batch skips it (Realtime's
// BatchBroadcast does the same).

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

var (
	errUnauthorized = message(http.StatusUnauthorized, "Unauthorized")
	errTooMany      = message(http.StatusTooManyRequests, "Too many messages per second")
)

// senderBudgets gives every REST broadcast sender the budget a socket has
// (REALTIME_MAX_EVENTS_PER_SECOND, bursts of ten seconds' worth): a signed-in user by
// account, a caller with only a project key by address; the service role is the project
// itself and is not limited. A batch spends one message per entry.
type senderBudgets struct {
	mu      sync.Mutex
	perSec  float64
	burst   int
	budgets map[string]*rate.Limiter
}

func newSenderBudgets(perSec, burst float64) *senderBudgets {
	return &senderBudgets{perSec: perSec, burst: max(int(burst), 1), budgets: map[string]*rate.Limiter{}}
}

func (b *senderBudgets) allow(key string, n int) bool {
	b.mu.Lock()
	l := b.budgets[key]
	if l == nil {
		if len(b.budgets) > 100_000 {
			b.budgets = map[string]*rate.Limiter{} // bound memory under a flood of keys
		}
		l = rate.NewLimiter(rate.Limit(b.perSec), b.burst)
		b.budgets[key] = l
	}
	b.mu.Unlock()
	return l.AllowN(time.Now(), n)
}

// spend takes n messages from the sender's budget.
func (s *Server) spend(r *http.Request, claims *authn.Claims, n int) error {
	if claims.Role == authn.RoleServiceRole || s.limits.rest == nil {
		return nil
	}
	key := "user:" + claims.Subject
	if claims.Subject == "" {
		key = "ip:" + httpx.ClientIP(r, s.d.Config.TrustedProxies)
	}
	if !s.limits.rest.allow(key, n) {
		return errTooMany
	}
	return nil
}

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

func (s *Server) publishREST(topic, event string, payload json.RawMessage, private bool) {
	p, _ := json.Marshal(map[string]any{"type": "broadcast", "event": event, "payload": payload})
	s.bus.publishBroadcast(topicKey("realtime:"+topic, private), p, nil)
}

// mayPublishPrivate asks the sender's realtime.messages policies (fails closed).
func (s *Server) mayPublishPrivate(claims *authn.Claims, topic string) bool {
	ok, err := s.authorizeWrite(claims, topic, extBroadcast)
	if err != nil {
		s.d.Log.Warn("realtime: write authorisation failed", "err", err)
	}
	return ok
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
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, s.d.Config.MaxBodyBytes)).Decode(&body); err != nil || len(body.Messages) == 0 {
		return fieldError("messages", "can't be blank")
	}
	if err := s.spend(r, claims, len(body.Messages)); err != nil {
		return err
	}
	for _, m := range body.Messages {
		if m.Topic == "" || m.Event == "" {
			return fieldError("messages", "every message needs a topic and an event")
		}
		if len(m.Payload) > s.limits.maxPayload {
			return fieldError("payload", "Payload size exceeds tenant limit")
		}
	}
	// Every public message is checked before any is sent: a batch is refused whole when one
	// names a topic the sender may not use. Private messages are decided per topic by RLS,
	// and those refused are skipped, as Realtime's BatchBroadcast does.
	for _, m := range body.Messages {
		if !m.Private && !s.mayPublishTo(claims, strings.TrimPrefix(m.Topic, "realtime:")) {
			return message(http.StatusForbidden, "Unauthorized")
		}
	}
	privateOK := map[string]bool{}
	for _, m := range body.Messages {
		topic := strings.TrimPrefix(m.Topic, "realtime:")
		if m.Private {
			ok, seen := privateOK[topic]
			if !seen {
				ok = s.mayPublishPrivate(claims, topic)
				privateOK[topic] = ok
			}
			if !ok {
				continue
			}
		}
		payload := m.Payload
		if len(payload) == 0 {
			payload = json.RawMessage("{}")
		}
		s.publishREST(topic, m.Event, payload, m.Private)
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
	if err := s.spend(r, claims, 1); err != nil {
		return err
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	binary := false
	switch mt {
	case "application/json":
	case "application/octet-stream":
		binary = true
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
	if !binary {
		if len(strings.TrimSpace(string(data))) == 0 || string(data) == "null" {
			return fieldError("payload", "can't be blank")
		}
		if !json.Valid(data) {
			return message(http.StatusBadRequest, "Malformed JSON body")
		}
	}
	private := r.URL.Query().Get("private") == "true"
	topic = strings.TrimPrefix(topic, "realtime:")
	if private {
		if !s.mayPublishPrivate(claims, topic) {
			return message(http.StatusForbidden, "Unauthorized")
		}
	} else if !s.mayPublishTo(claims, topic) {
		return message(http.StatusForbidden, "Unauthorized")
	}
	if binary {
		// Binary payloads reach vsn 2.0.0 sockets as Realtime's binary broadcast frame.
		s.bus.publishBinary(topicKey("realtime:"+topic, private), event, data, nil)
	} else {
		s.publishREST(topic, event, json.RawMessage(data), private)
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}
