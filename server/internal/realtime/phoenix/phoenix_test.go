package phoenix

import (
	"encoding/json"
	"testing"
)

func TestRoundTripBothVersions(t *testing.T) {
	jr, ref := "1", "7"
	m := Message{JoinRef: &jr, Ref: &ref, Topic: "realtime:room", Event: "phx_join", Payload: json.RawMessage(`{"config":{}}`)}
	for _, vsn := range []string{V1, V2} {
		got, err := Decode(vsn, Encode(vsn, m))
		if err != nil || *got.JoinRef != "1" || *got.Ref != "7" || got.Topic != m.Topic || got.Event != m.Event || string(got.Payload) != `{"config":{}}` {
			t.Fatalf("%s: %+v %v", vsn, got, err)
		}
	}
	if string(Encode(V2, Message{Topic: "t", Event: "e"})) != `[null,null,"t","e",{}]` {
		t.Fatalf("nil refs: %s", Encode(V2, Message{Topic: "t", Event: "e"}))
	}
}

func TestDecodeRejectsMalformed(t *testing.T) {
	for _, in := range []string{``, `{}`, `[1,2,3]`, `["1","2","","e",{}]`, `["1","2","t","",{}]`, `[1,"2","t","e",{}]`, `not json`} {
		if _, err := Decode(V2, []byte(in)); err == nil {
			t.Errorf("v2 accepted %q", in)
		}
	}
	if _, err := Decode(V1, []byte(`{"topic":"t"}`)); err == nil {
		t.Error("v1 accepted a frame without event")
	}
}

// The binary user-broadcast push realtime-js sends with vsn 2.0.0.
func TestDecodeBinaryBroadcast(t *testing.T) {
	frame := func(enc byte, payload string, meta string) []byte {
		b := []byte{3, 1, 2, byte(len("realtime:r")), byte(len("ping")), byte(len(meta)), enc}
		b = append(b, "1"...)
		b = append(b, "12"...)
		b = append(b, "realtime:r"...)
		b = append(b, "ping"...)
		b = append(b, meta...)
		return append(b, payload...)
	}
	m, err := DecodeBinary(frame(1, `{"x":1}`, `{"persist":true}`))
	if err != nil || m.Topic != "realtime:r" || m.Event != "broadcast" || *m.Ref != "12" {
		t.Fatalf("%+v %v", m, err)
	}
	var p map[string]any
	_ = json.Unmarshal(m.Payload, &p)
	if p["event"] != "ping" || p["type"] != "broadcast" || p["payload"].(map[string]any)["x"] != float64(1) || p["persist"] != true {
		t.Fatalf("payload %v", p)
	}
	if _, err := DecodeBinary(frame(1, `{not json`, ``)); err == nil {
		t.Error("invalid JSON payload accepted")
	}
	if _, err := DecodeBinary(frame(9, `{}`, ``)); err == nil {
		t.Error("unknown encoding accepted")
	}
	if _, err := DecodeBinary([]byte{3, 200, 0, 0, 0, 0, 1}); err == nil {
		t.Error("truncated frame accepted")
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`["1","2","realtime:x","phx_join",{}]`))
	f.Add([]byte{3, 1, 1, 1, 1, 0, 1, 'a', 'b', 'c', 'd', '{', '}'})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = Decode(V2, b)
		_, _ = Decode(V1, b)
		_, _ = DecodeBinary(b)
	})
}

// The server's binary broadcast frame, as realtime-js's serializer decodes it.
func TestEncodeUserBroadcast(t *testing.T) {
	got := EncodeUserBroadcast("realtime:r", "ev", []byte(`{"id":"1"}`), true, []byte{0, 1})
	want := append([]byte{4, 10, 2, 10, 0}, "realtime:rev{\"id\":\"1\"}\x00\x01"...)
	if string(got) != string(want) {
		t.Fatalf("%q, want %q", got, want)
	}
	if EncodeUserBroadcast(string(make([]byte, 256)), "ev", nil, false, nil) != nil {
		t.Error("a topic over 255 bytes was encoded")
	}
}
