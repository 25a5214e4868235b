package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// socket is a student's realtime connection, joined to its own case_submissions rows as
// the progress page subscribes (Reporting.tsx), reconnecting like realtime-js when it drops.
type socket struct {
	s       *student
	ctx     context.Context
	cancel  context.CancelFunc
	mu      sync.Mutex
	ws      *websocket.Conn
	joined  atomic.Bool
	ref     atomic.Int64
	waiting map[string]time.Time // "id/stage" → when the write was acknowledged
	arrived map[string]time.Time // pushes that came before their write's answer
}

// openSocket connects and joins; the socket then runs until the run ends.
func openSocket(ctx context.Context, s *student) *socket {
	ctx, cancel := context.WithCancel(ctx)
	k := &socket{s: s, ctx: ctx, cancel: cancel, waiting: map[string]time.Time{}, arrived: map[string]time.Time{}}
	s.rec.mu.Lock()
	s.rec.sockets = append(s.rec.sockets, k)
	s.rec.mu.Unlock()
	ready := make(chan struct{})
	go k.run(ready)
	select { // the first join is part of opening the dashboard
	case <-ready:
	case <-time.After(10 * time.Second):
	case <-ctx.Done():
	}
	return k
}

func (k *socket) close() {
	if k == nil {
		return
	}
	k.cancel()
	k.mu.Lock()
	if k.ws != nil {
		_ = k.ws.Close()
	}
	k.mu.Unlock()
}

func (k *socket) run(ready chan struct{}) {
	first := true
	for k.ctx.Err() == nil {
		if !first {
			k.s.rec.mu.Lock()
			k.s.rec.reconnects++
			k.s.rec.mu.Unlock()
		}
		err := k.session(ready, first)
		first = false
		if k.ctx.Err() != nil {
			return
		}
		_ = err
		select { // realtime-js waits before reconnecting too
		case <-time.After(time.Second):
		case <-k.ctx.Done():
		}
	}
}

// session is one connection: dial, join, heartbeat, read pushes until it breaks.
func (k *socket) session(ready chan struct{}, first bool) error {
	t0 := time.Now()
	u := strings.Replace(k.s.cfg.URL, "http", "ws", 1) + "/realtime/v1/websocket?" + url.Values{"apikey": {k.s.cfg.AnonKey}, "vsn": {"2.0.0"}}.Encode()
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second}
	ws, _, err := d.DialContext(k.ctx, u, nil)
	if err != nil {
		k.record(t0, err)
		return err
	}
	k.mu.Lock()
	k.ws = ws
	k.mu.Unlock()
	defer func() {
		k.joined.Store(false)
		_ = ws.Close()
		// Pushes still awaited went with the connection: their changes were committed
		// before any re-join, and Realtime does not replay them (as on Supabase). They
		// are counted apart, not as missed; what is written after the re-join is expected.
		k.mu.Lock()
		lost := len(k.waiting)
		clear(k.waiting)
		k.mu.Unlock()
		if lost > 0 && k.ctx.Err() == nil {
			k.s.rec.mu.Lock()
			k.s.rec.pushExpected -= lost
			k.s.rec.pushLostWithConnection += lost
			k.s.rec.mu.Unlock()
		}
	}()
	topic := "realtime:progress-" + k.s.uid
	joinRef := fmt.Sprint(k.ref.Add(1))
	join := []any{joinRef, joinRef, topic, "phx_join", map[string]any{
		"config": map[string]any{
			"broadcast": map[string]any{"ack": false, "self": false}, "presence": map[string]any{"key": "", "enabled": false},
			"postgres_changes": []any{map[string]any{"event": "*", "schema": "public", "table": "case_submissions", "filter": "user_id=eq." + k.s.uid}},
			"private":          false,
		},
		"access_token": k.s.token,
	}}
	if err := k.write(join); err != nil {
		k.record(t0, err)
		return err
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() { // realtime-js's heartbeat
		t := time.NewTicker(25 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				ref := fmt.Sprint(k.ref.Add(1))
				if k.write([]any{nil, ref, "phoenix", "heartbeat", map[string]any{}}) != nil {
					return
				}
			case <-stop:
				return
			case <-k.ctx.Done():
				return
			}
		}
	}()
	for {
		_ = ws.SetReadDeadline(time.Now().Add(90 * time.Second))
		_, data, err := ws.ReadMessage()
		if err != nil {
			if !k.joined.Load() {
				k.record(t0, err)
			}
			return err
		}
		var m []json.RawMessage
		if json.Unmarshal(data, &m) != nil || len(m) != 5 {
			continue
		}
		var ev string
		_ = json.Unmarshal(m[3], &ev)
		switch ev {
		case "phx_reply":
			var ref string
			_ = json.Unmarshal(m[1], &ref)
			if ref != joinRef || k.joined.Load() {
				continue
			}
			var p struct {
				Status string `json:"status"`
			}
			_ = json.Unmarshal(m[4], &p)
			if p.Status != "ok" {
				err := fmt.Errorf("join refused: %s", m[4])
				k.record(t0, err)
				return err
			}
			k.joined.Store(true)
			k.record(t0, nil)
			if first {
				close(ready)
				first = false
			}
		case "postgres_changes":
			var p struct {
				Data struct {
					Type   string `json:"type"`
					Record struct {
						ID        string  `json:"id"`
						Status    string  `json:"status"`
						CheckedAt *string `json:"ai_checked_at"`
					} `json:"record"`
				} `json:"data"`
			}
			if json.Unmarshal(m[4], &p) != nil {
				continue
			}
			stage := "insert"
			switch {
			case p.Data.Type == "INSERT":
			case p.Data.Record.Status == "graded":
				stage = "graded"
			case p.Data.Record.CheckedAt != nil:
				stage = "checked"
			default:
				continue
			}
			k.arrive(p.Data.Record.ID + "/" + stage)
		}
	}
}

func (k *socket) write(v any) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	_ = k.ws.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return k.ws.WriteJSON(v)
}

func (k *socket) record(t0 time.Time, err error) {
	if k.ctx.Err() != nil {
		return
	}
	e := Event{Kind: "WS connect+join", At: t0, Dur: time.Since(t0)}
	if err != nil {
		e.Err = err.Error()
	}
	k.s.rec.add(e)
}

// expect notes a write the student saw succeed: its push should follow while joined.
func (k *socket) expect(id, stage string) {
	if k == nil || !k.joined.Load() {
		return
	}
	key := id + "/" + stage
	now := time.Now()
	rec := k.s.rec
	k.mu.Lock()
	at, early := k.arrived[key]
	if early {
		delete(k.arrived, key)
	} else {
		k.waiting[key] = now
	}
	k.mu.Unlock()
	rec.mu.Lock()
	rec.pushExpected++
	if early {
		rec.pushReceived++
		rec.pushDelays = append(rec.pushDelays, max(0, at.Sub(now)))
	}
	rec.mu.Unlock()
}

func (k *socket) arrive(key string) {
	now := time.Now()
	k.mu.Lock()
	at, ok := k.waiting[key]
	if ok {
		delete(k.waiting, key)
	} else {
		k.arrived[key] = now
	}
	k.mu.Unlock()
	if ok {
		k.s.rec.mu.Lock()
		k.s.rec.pushReceived++
		k.s.rec.pushDelays = append(k.s.rec.pushDelays, now.Sub(at))
		k.s.rec.mu.Unlock()
	}
}
