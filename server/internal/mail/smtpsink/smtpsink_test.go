package smtpsink_test

import (
	"encoding/json"
	"net"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"casus/server/internal/mail"
	"casus/server/internal/mail/smtpsink"
)

// The real sender talks SMTP to the sink; the sink parses the MIME message back.
func TestSendAndRead(t *testing.T) {
	sink, err := smtpsink.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	host, port, _ := net.SplitHostPort(sink.Addr)
	p, _ := strconv.Atoi(port)
	sender := &mail.SMTP{Host: host, Port: p, From: "Casus <no-reply@casus.local>"}
	link := "http://127.0.0.1:1/auth/v1/verify?token=abc&type=recovery&redirect_to=http%3A%2F%2F127.0.0.1%3A1%2Freset"
	for _, kind := range []mail.Kind{mail.Confirmation, mail.Recovery, mail.MagicLink} {
		if err := sender.Send(mail.Compose(kind, "Ana@Example.ro", link)); err != nil {
			t.Fatal(err)
		}
	}
	m, ok := sink.WaitFor("ana@example.ro", 2, 2*time.Second)
	if !ok {
		t.Fatal("not received")
	}
	if m.Subject != "Linkul tău de autentificare — Casus" || m.Link != link || m.From != "no-reply@casus.local" {
		t.Fatalf("parsed: %+v", m)
	}
	if !strings.Contains(m.Text, "Intră în cont") || !strings.Contains(m.HTML, "<a href=") {
		t.Fatalf("parts: text %q html %q", m.Text, m.HTML)
	}

	srv := httptest.NewServer(sink.Handler())
	defer srv.Close()
	res, err := srv.Client().Get(srv.URL + "/messages?to=ANA@example.ro")
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	_ = json.NewDecoder(res.Body).Decode(&got)
	res.Body.Close()
	if len(got) != 3 || !strings.HasPrefix(got[0]["subject"].(string), "Confirmă") || got[1]["link"] != link {
		t.Fatalf("json: %v", got)
	}
	if sink.Count("other@example.ro") != 0 {
		t.Fatal("count for another address")
	}
}
