package realtime

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"casus/server/internal/realtime/phoenix"
)

// Messages stored in realtime.messages by realtime.send / send_binary / broadcast_changes
// (or anything else that inserts a broadcast row). The inserted rows arrive from the WAL
// (publication supabase_realtime_messages_publication, wal.go) on every instance, which
// delivers each to its subscribers of the topic: a private message to the private channels whose read
// policy allowed broadcast at join, a public one to the public channels — as Supabase's
// replication of realtime.messages does. Private channels can ask for the recent ones
// again when they join (config.broadcast.replay).

// storedMessage is one broadcast row of realtime.messages.
type storedMessage struct {
	id, topic, event string
	private          bool
	payload          json.RawMessage // JSON payload; nil when binary
	binary           []byte          // send_binary's payload
	isBinary         bool
}

const messageColumns = "id::text, topic, event, coalesce(private, false), payload, binary_payload"

func scanMessage(row interface{ Scan(...any) error }) (storedMessage, error) {
	var m storedMessage
	var payload, bin []byte
	if err := row.Scan(&m.id, &m.topic, &m.event, &m.private, &payload, &bin); err != nil {
		return m, err
	}
	if bin != nil {
		m.binary, m.isBinary = bin, true
	} else if payload != nil {
		m.payload = json.RawMessage(payload)
	}
	return m, nil
}

// frame encodes the message as a broadcast push on topic for a socket's protocol version,
// with meta ({"id"}, plus "replayed" for replays). A binary payload needs vsn 2.0.0's
// binary frame: vsn 1.0.0 sockets do not get it (nil), as in Supabase.
func (m storedMessage) frame(vsn, topic string, meta map[string]any) []byte {
	var metaJSON []byte
	if meta != nil {
		metaJSON, _ = json.Marshal(meta)
	}
	if m.isBinary {
		if vsn == phoenix.V1 {
			return nil
		}
		return phoenix.EncodeUserBroadcast(topic, m.event, metaJSON, true, m.binary)
	}
	body := map[string]any{"type": "broadcast", "event": m.event, "payload": m.payload}
	if meta != nil {
		body["meta"] = json.RawMessage(metaJSON)
	}
	p, _ := json.Marshal(body)
	return phoenix.Encode(vsn, phoenix.Push(nil, topic, "broadcast", json.RawMessage(p)))
}

// size is the payload's size against the payload limit.
func (m storedMessage) size() int {
	if m.isBinary {
		return len(m.binary)
	}
	return len(m.payload)
}

// deliverMessages pushes broadcast rows read from the WAL to the local subscribers each
// may reach, in stream order.
func (f *changeFeed) deliverMessages(msgs []walMessage) {
	for _, wm := range msgs {
		m := storedMessage{id: wm.ID, topic: wm.Topic, event: wm.Event, private: wm.Private, binary: wm.Binary, isBinary: wm.IsBin}
		if !wm.IsBin && wm.Payload != nil {
			m.payload = json.RawMessage(wm.Payload)
		}
		if (m.payload == nil && !m.isBinary) || m.size() > f.s.limits.maxPayload {
			continue // no payload (Supabase: payload_missing) or over the limit
		}
		topic := "realtime:" + m.topic
		meta := map[string]any{"id": m.id}
		frames := map[string][]byte{}
		for _, ch := range f.s.local(topicKey(topic, m.private)) {
			if !ch.readsBroadcast() || ch.replayed[m.id] {
				continue
			}
			frame, done := frames[ch.c.vsn]
			if !done {
				frame = m.frame(ch.c.vsn, topic, meta)
				frames[ch.c.vsn] = frame
			}
			if frame != nil {
				ch.c.pushFrame(frame)
			}
		}
	}
}

// replay returns a private topic's broadcasts inserted since a time (ms since the epoch),
// at most limit (1–25, as Supabase bounds it) of the most recent, oldest first.
func (s *Server) replay(subTopic string, since, limit int64) ([]storedMessage, error) {
	limit = max(min(limit, 25), 1)
	ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
	defer cancel()
	rows, err := s.d.Owner.Query(ctx, "select "+messageColumns+` from realtime.messages
		where topic = $1 and private is true and extension = 'broadcast' and event is not null
		  and inserted_at >= timezone('utc', to_timestamp($2::float8 / 1000))
		  and inserted_at < timezone('utc', now()) + interval '1 minute'
		order by inserted_at desc limit $3`, subTopic, since, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []storedMessage
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			return nil, err
		}
		if m.payload == nil && !m.isBinary {
			continue
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// replayParams reads config.broadcast.replay: {"since": ms since the epoch (required
// integer), "limit": integer (default 25)}.
func replayParams(raw json.RawMessage) (since, limit int64, ok bool) {
	var p struct {
		Since *json.Number `json:"since"`
		Limit *json.Number `json:"limit"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&p) != nil || p.Since == nil {
		return 0, 0, false
	}
	since, err := p.Since.Int64()
	if err != nil || since < 0 {
		return 0, 0, false
	}
	limit = 25
	if p.Limit != nil {
		if limit, err = p.Limit.Int64(); err != nil {
			return 0, 0, false
		}
	}
	return since, limit, true
}
