// Package mail sends the auth e-mails (confirmation, recovery, magic link) in Romanian,
// over SMTP when configured, otherwise into a development outbox shown at /_dev/mail.
package mail

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"html/template"
	"log/slog"
	"mime"
	"net"
	"net/smtp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Kind is which mail to send.
type Kind string

const (
	Confirmation Kind = "confirmation"
	Recovery     Kind = "recovery"
	MagicLink    Kind = "magiclink"
	Invite       Kind = "invite"
	EmailChange  Kind = "email_change"
	// Reauthentication carries a code to type, not a link (ComposeCode).
	Reauthentication Kind = "reauthentication"
)

// Message is one mail as sent.
type Message struct {
	To      string    `json:"to"`
	Subject string    `json:"subject"`
	Text    string    `json:"text"`
	HTML    string    `json:"html"`
	Link    string    `json:"link,omitempty"`
	Code    string    `json:"code,omitempty"`
	SentAt  time.Time `json:"sent_at"`
}

type template_ struct{ subject, intro, action string }

var templates = map[Kind]template_{
	Confirmation: {"Confirmă-ți adresa de email — Casus", "Bine ai venit pe Casus! Confirmă-ți adresa de email ca să îți activezi contul.", "Confirmă adresa de email"},
	Recovery:     {"Resetează-ți parola — Casus", "Am primit o cerere de resetare a parolei contului tău Casus. Dacă nu tu ai cerut-o, ignoră acest mesaj.", "Setează o parolă nouă"},
	Invite:       {"Ai fost invitat pe Casus", "Ai primit o invitație să îți creezi un cont pe Casus. Urmează linkul de mai jos ca să accepți invitația.", "Acceptă invitația"},
	EmailChange:  {"Confirmă adresa de email — Casus", "Ai cerut să folosești această adresă de email pentru contul tău Casus. Confirm-o ca să o poți folosi la autentificare.", "Confirmă adresa de email"},
	MagicLink:    {"Linkul tău de autentificare — Casus", "Folosește linkul de mai jos ca să intri în contul tău Casus. Linkul poate fi folosit o singură dată.", "Intră în cont"},
}

var htmlBody = template.Must(template.New("mail").Parse(`<!doctype html><html lang="ro"><body style="font-family:system-ui,sans-serif;color:#1f2933">
<h2>Casus</h2><p>{{.Intro}}</p><p><a href="{{.Link}}" style="background:#1d4ed8;color:#fff;padding:10px 16px;border-radius:6px;text-decoration:none">{{.Action}}</a></p>
<p style="font-size:12px;color:#52606d">Dacă butonul nu funcționează, copiază acest link în browser:<br>{{.Link}}</p></body></html>`))

// Compose builds the mail for a link.
func Compose(kind Kind, to, link string) Message {
	t := templates[kind]
	var h bytes.Buffer
	_ = htmlBody.Execute(&h, map[string]string{"Intro": t.intro, "Link": link, "Action": t.action})
	text := t.intro + "\n\n" + t.action + ": " + link + "\n\nEchipa Casus\n"
	return Message{To: to, Subject: t.subject, Text: text, HTML: h.String(), Link: link, SentAt: time.Now()}
}

// ComposeCode builds the mail of a code the user types (reauthentication).
func ComposeCode(kind Kind, to, code string) Message {
	t := codeTemplates[kind]
	var h bytes.Buffer
	_ = codeBody.Execute(&h, map[string]string{"Intro": t.intro, "Code": code, "Action": t.action})
	text := t.intro + "\n\n" + t.action + ": " + code + "\n\nEchipa Casus\n"
	return Message{To: to, Subject: t.subject, Text: text, HTML: h.String(), Code: code, SentAt: time.Now()}
}

var codeTemplates = map[Kind]template_{
	Reauthentication: {"Codul tău de confirmare — Casus", "Ai cerut să schimbi parola contului tău Casus. Introdu codul de mai jos ca să confirmi că ești tu. Dacă nu tu ai cerut-o, ignoră acest mesaj.", "Codul de confirmare"},
}

var codeBody = template.Must(template.New("code").Parse(`<!doctype html><html lang="ro"><body style="font-family:system-ui,sans-serif;color:#1f2933">
<h2>Casus</h2><p>{{.Intro}}</p><p>{{.Action}}: <b style="font-size:20px;letter-spacing:2px">{{.Code}}</b></p></body></html>`))

// Sender delivers mails.
type Sender interface {
	Send(m Message) error
}

// SMTP sends through a real server (STARTTLS when offered, PLAIN auth when a user is set).
type SMTP struct {
	Host, User, Pass, From string
	Port                   int
}

// sendTimeout bounds one delivery (connect to QUIT): the auth service's mail workers
// must not hang on a silent server.
const sendTimeout = 30 * time.Second

// Send implements Sender.
func (s *SMTP) Send(m Message) error {
	addr := net.JoinHostPort(s.Host, strconv.Itoa(s.Port))
	conn, err := net.DialTimeout("tcp", addr, sendTimeout)
	if err != nil {
		return err
	}
	_ = conn.SetDeadline(time.Now().Add(sendTimeout))
	c, err := smtp.NewClient(conn, s.Host)
	if err != nil {
		conn.Close()
		return err
	}
	defer c.Close()
	if ok, _ := c.Extension("STARTTLS"); ok {
		if err := c.StartTLS(&tls.Config{ServerName: s.Host}); err != nil {
			return err
		}
	}
	if s.User != "" {
		if err := c.Auth(smtp.PlainAuth("", s.User, s.Pass, s.Host)); err != nil {
			return err
		}
	}
	from := s.From
	if a, err := parseAddr(from); err == nil {
		from = a
	}
	if err := c.Mail(from); err != nil {
		return err
	}
	if err := c.Rcpt(m.To); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(render(s.From, m)); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

func parseAddr(s string) (string, error) {
	if i, j := strings.IndexByte(s, '<'), strings.IndexByte(s, '>'); i >= 0 && j > i {
		return s[i+1 : j], nil
	}
	if strings.Contains(s, "@") {
		return strings.TrimSpace(s), nil
	}
	return "", fmt.Errorf("bad address %q", s)
}

// render writes a multipart/alternative message with UTF-8 headers.
func render(from string, m Message) []byte {
	var b bytes.Buffer
	boundary := "casus-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: %s\r\nMIME-Version: 1.0\r\n", from, m.To, mime.QEncoding.Encode("utf-8", m.Subject), time.Now().Format(time.RFC1123Z))
	fmt.Fprintf(&b, "Content-Type: multipart/alternative; boundary=%q\r\n\r\n", boundary)
	fmt.Fprintf(&b, "--%s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n%s\r\n", boundary, strings.ReplaceAll(m.Text, "\n", "\r\n"))
	fmt.Fprintf(&b, "--%s\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n%s\r\n--%s--\r\n", boundary, m.HTML, boundary)
	return b.Bytes()
}

// Outbox keeps mails in memory for development (no SMTP configured).
type Outbox struct {
	mu   sync.Mutex
	msgs []Message
	Log  *slog.Logger
}

// Send implements Sender. The link is logged so a newcomer can follow it from the terminal.
func (o *Outbox) Send(m Message) error {
	o.mu.Lock()
	o.msgs = append(o.msgs, m)
	if len(o.msgs) > 200 {
		o.msgs = o.msgs[len(o.msgs)-200:]
	}
	o.mu.Unlock()
	o.Log.Info("mail kept in the development outbox (/_dev/mail)", "to", m.To, "subject", m.Subject, "link", m.Link)
	return nil
}

// Messages returns the outbox, newest first.
func (o *Outbox) Messages() []Message {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]Message, len(o.msgs))
	for i, m := range o.msgs {
		out[len(o.msgs)-1-i] = m
	}
	return out
}
