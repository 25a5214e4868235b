// Package phoenix encodes and decodes Phoenix channel frames as realtime-js speaks
// them: vsn 1.0.0 sends JSON objects, vsn 2.0.0 sends JSON arrays
// [join_ref, ref, topic, event, payload] plus a binary frame for user broadcasts.
package phoenix

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Protocol versions realtime-js offers.
const (
	V1 = "1.0.0"
	V2 = "2.0.0"
)

// Standard events.
const (
	EventJoin      = "phx_join"
	EventLeave     = "phx_leave"
	EventReply     = "phx_reply"
	EventError     = "phx_error"
	EventClose     = "phx_close"
	EventHeartbeat = "heartbeat"
	TopicPhoenix   = "phoenix"
)

// Message is one frame. JoinRef and Ref are nil when absent (server pushes).
type Message struct {
	JoinRef *string
	Ref     *string
	Topic   string
	Event   string
	Payload json.RawMessage
	// Binary is the user payload of a binary broadcast push with binary encoding (nil
	// otherwise); UserEvent is its event. Payload then holds the JSON form (base64).
	Binary    []byte
	UserEvent string
}

type objectFrame struct {
	JoinRef *string         `json:"join_ref"`
	Ref     *string         `json:"ref"`
	Topic   string          `json:"topic"`
	Event   string          `json:"event"`
	Payload json.RawMessage `json:"payload"`
}

// ErrMalformed is returned for frames that are not valid Phoenix messages.
var ErrMalformed = errors.New("malformed frame")

// Decode reads a text frame in the connection's protocol version.
func Decode(vsn string, data []byte) (Message, error) {
	data = bytes.TrimSpace(data)
	if vsn == V1 {
		var f objectFrame
		if err := json.Unmarshal(data, &f); err != nil || f.Topic == "" || f.Event == "" {
			return Message{}, ErrMalformed
		}
		return Message{JoinRef: f.JoinRef, Ref: f.Ref, Topic: f.Topic, Event: f.Event, Payload: f.Payload}, nil
	}
	var arr []json.RawMessage
	if err := json.Unmarshal(data, &arr); err != nil || len(arr) != 5 {
		return Message{}, ErrMalformed
	}
	var m Message
	var err error
	if m.JoinRef, err = optString(arr[0]); err != nil {
		return Message{}, err
	}
	if m.Ref, err = optString(arr[1]); err != nil {
		return Message{}, err
	}
	if json.Unmarshal(arr[2], &m.Topic) != nil || json.Unmarshal(arr[3], &m.Event) != nil || m.Topic == "" || m.Event == "" {
		return Message{}, ErrMalformed
	}
	m.Payload = arr[4]
	return m, nil
}

func optString(raw json.RawMessage) (*string, error) {
	if string(raw) == "null" {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, ErrMalformed
	}
	return &s, nil
}

// Encode writes a text frame in the connection's protocol version.
func Encode(vsn string, m Message) []byte {
	payload := m.Payload
	if len(payload) == 0 {
		payload = json.RawMessage("{}")
	}
	var b []byte
	if vsn == V1 {
		b, _ = json.Marshal(objectFrame{JoinRef: m.JoinRef, Ref: m.Ref, Topic: m.Topic, Event: m.Event, Payload: payload})
		return b
	}
	b, _ = json.Marshal([]any{m.JoinRef, m.Ref, m.Topic, m.Event, payload})
	return b
}

// Binary frame kinds of vsn 2.0.0.
const (
	kindUserBroadcastPush = 3 // client → server
	encodingBinary        = 0
	encodingJSON          = 1
)

// DecodeBinary reads a client's binary user-broadcast push into the equivalent JSON
// message: event "broadcast", payload {type, event, payload}. A binary user payload is
// also kept as bytes (Binary), so it is relayed as a binary broadcast.
func DecodeBinary(data []byte) (Message, error) {
	if len(data) < 7 || data[0] != kindUserBroadcastPush {
		return Message{}, ErrMalformed
	}
	lens := data[1:6]
	enc := data[6]
	off := 7
	field := func(n int) (string, error) {
		if off+n > len(data) {
			return "", ErrMalformed
		}
		s := string(data[off : off+n])
		off += n
		return s, nil
	}
	joinRef, err1 := field(int(lens[0]))
	ref, err2 := field(int(lens[1]))
	topic, err3 := field(int(lens[2]))
	event, err4 := field(int(lens[3]))
	meta, err5 := field(int(lens[4]))
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil || topic == "" {
		return Message{}, ErrMalformed
	}
	body := data[off:]
	var user json.RawMessage
	switch enc {
	case encodingJSON:
		if !json.Valid(body) {
			return Message{}, ErrMalformed
		}
		user = body
	case encodingBinary:
		user, _ = json.Marshal(body) // base64 string, for a JSON-only reader
	default:
		return Message{}, fmt.Errorf("%w: payload encoding %d", ErrMalformed, enc)
	}
	payload := map[string]any{"type": "broadcast", "event": event, "payload": user}
	if meta != "" {
		var m map[string]any
		if json.Unmarshal([]byte(meta), &m) == nil {
			for k, v := range m {
				if k == "persist" {
					payload[k] = v
				}
			}
		}
	}
	p, _ := json.Marshal(payload)
	msg := Message{Topic: topic, Event: "broadcast", Payload: p}
	if enc == encodingBinary {
		msg.Binary, msg.UserEvent = append([]byte{}, body...), event
	}
	if joinRef != "" {
		msg.JoinRef = &joinRef
	}
	if ref != "" {
		msg.Ref = &ref
	}
	return msg, nil
}

// Reply builds a phx_reply to a client message.
func Reply(to Message, status string, response any) Message {
	p, _ := json.Marshal(map[string]any{"status": status, "response": response})
	return Message{JoinRef: to.JoinRef, Ref: to.Ref, Topic: to.Topic, Event: EventReply, Payload: p}
}

// Push builds a server push on a topic, tagged with the channel's join ref.
func Push(joinRef *string, topic, event string, payload any) Message {
	p, ok := payload.(json.RawMessage)
	if !ok {
		p, _ = json.Marshal(payload)
	}
	return Message{JoinRef: joinRef, Topic: topic, Event: event, Payload: p}
}

// KindUserBroadcast is the first byte of the server → client binary broadcast of vsn
// 2.0.0 (a JSON frame never starts with it).
const KindUserBroadcast = 4

// EncodeUserBroadcast writes a vsn 2.0.0 binary broadcast frame, as Realtime's V2
// serializer does for messages whose payload is binary (realtime.send_binary, binary REST
// broadcast): kind, the sizes of topic, event and metadata (one byte each), the payload
// encoding (0 binary, 1 JSON), then topic, event, metadata (JSON, optional) and payload.
// It returns nil when a field is too long for its one-byte size.
func EncodeUserBroadcast(topic, event string, meta []byte, binary bool, payload []byte) []byte {
	if len(topic) > 255 || len(event) > 255 || len(meta) > 255 {
		return nil
	}
	enc := byte(encodingJSON)
	if binary {
		enc = encodingBinary
	}
	out := make([]byte, 0, 5+len(topic)+len(event)+len(meta)+len(payload))
	out = append(out, KindUserBroadcast, byte(len(topic)), byte(len(event)), byte(len(meta)), enc)
	out = append(out, topic...)
	out = append(out, event...)
	out = append(out, meta...)
	return append(out, payload...)
}
