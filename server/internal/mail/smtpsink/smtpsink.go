// Package smtpsink is a real SMTP server on loopback that keeps every message it
// receives, parsed, for tests of the mails the server sends. Go tests use it in-process;
// scripts/with-server.sh runs it as `smtp-sink` and reads it over HTTP (Handler).
package smtpsink

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/mail"
	"regexp"
	"strings"
	"sync"
	"time"
)

// maxMessage bounds one message; the sink is for tests, not a mail store.
const maxMessage = 4 << 20

// Mail is one received message.
type Mail struct {
	From    string    `json:"from"`
	To      string    `json:"to"`
	Subject string    `json:"subject"`
	Text    string    `json:"text"`
	HTML    string    `json:"html"`
	Link    string    `json:"link"`
	At      time.Time `json:"at"`
	// Data is the raw message as received (headers and body).
	Data string `json:"-"`
}

// Sink is a running SMTP server.
type Sink struct {
	Addr string
	ln   net.Listener
	mu   sync.Mutex
	mail []Mail
	cond *sync.Cond
}

// Start listens on 127.0.0.1 at a free port.
func Start() (*Sink, error) { return Listen("127.0.0.1:0") }

// Listen serves SMTP on addr.
func Listen(addr string) (*Sink, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Sink{Addr: ln.Addr().String(), ln: ln}
	s.cond = sync.NewCond(&s.mu)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c)
		}
	}()
	return s, nil
}

// Close stops the server.
func (s *Sink) Close() error { return s.ln.Close() }

func (s *Sink) serve(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	r := bufio.NewReader(io.LimitReader(c, 2*maxMessage))
	say := func(line string) { _, _ = c.Write([]byte(line + "\r\n")) }
	say("220 smtpsink ready")
	var from string
	var rcpts []string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		cmd := strings.ToUpper(strings.TrimSpace(line))
		switch {
		case strings.HasPrefix(cmd, "EHLO"):
			say("250-smtpsink")
			say("250 8BITMIME")
		case strings.HasPrefix(cmd, "HELO"):
			say("250 smtpsink")
		case strings.HasPrefix(cmd, "MAIL FROM:"):
			from, rcpts = address(line[10:]), nil
			say("250 OK")
		case strings.HasPrefix(cmd, "RCPT TO:"):
			rcpts = append(rcpts, address(line[8:]))
			say("250 OK")
		case cmd == "DATA":
			if len(rcpts) == 0 {
				say("503 need RCPT first")
				continue
			}
			say("354 end with .")
			var b strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" || l == ".\n" {
					break
				}
				if b.Len() < maxMessage {
					b.WriteString(strings.TrimPrefix(l, ".")) // undo dot-stuffing
				}
			}
			s.keep(from, rcpts, b.String())
			say("250 OK queued")
		case cmd == "RSET":
			from, rcpts = "", nil
			say("250 OK")
		case cmd == "QUIT":
			say("221 bye")
			return
		default:
			say("250 OK")
		}
	}
}

// address takes the mailbox out of "<a@b> SIZE=…".
func address(s string) string {
	s = strings.TrimSpace(s)
	if i, j := strings.IndexByte(s, '<'), strings.IndexByte(s, '>'); i >= 0 && j > i {
		return strings.ToLower(s[i+1 : j])
	}
	if f := strings.Fields(s); len(f) > 0 {
		return strings.ToLower(f[0])
	}
	return ""
}

func (s *Sink) keep(from string, rcpts []string, data string) {
	m := parse(data)
	m.From, m.Data, m.At = from, data, time.Now()
	s.mu.Lock()
	for _, to := range rcpts {
		m.To = to
		s.mail = append(s.mail, m)
	}
	s.cond.Broadcast()
	s.mu.Unlock()
}

var linkRe = regexp.MustCompile(`https?://[^\s"<>]+/auth/v1/verify\?[^\s"<>]+`)

// parse reads subject, text and HTML parts of a MIME message; what it cannot parse
// stays in Text so a test still sees it.
func parse(data string) Mail {
	var m Mail
	msg, err := mail.ReadMessage(strings.NewReader(data))
	if err != nil {
		m.Text = data
	} else {
		dec := new(mime.WordDecoder)
		if subj, err := dec.DecodeHeader(msg.Header.Get("Subject")); err == nil {
			m.Subject = subj
		} else {
			m.Subject = msg.Header.Get("Subject")
		}
		readPart(&m, msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Body)
	}
	link := linkRe.FindString(m.Text)
	if link == "" {
		link = linkRe.FindString(m.HTML)
	}
	m.Link = strings.ReplaceAll(link, "&amp;", "&")
	return m
}

func readPart(m *Mail, ctype, encoding string, body io.Reader) {
	mt, params, err := mime.ParseMediaType(ctype)
	if err != nil {
		mt = "text/plain"
	}
	if strings.HasPrefix(mt, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextPart()
			if err != nil {
				return
			}
			// multipart decodes quoted-printable itself and drops the header.
			readPart(m, p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p)
		}
	}
	b, _ := io.ReadAll(io.LimitReader(body, maxMessage))
	if strings.EqualFold(strings.TrimSpace(encoding), "base64") {
		if d, err := base64.StdEncoding.DecodeString(string(bytes.Join(bytes.Fields(b), nil))); err == nil {
			b = d
		}
	}
	text := strings.ReplaceAll(string(b), "\r\n", "\n")
	switch mt {
	case "text/html":
		m.HTML += text
	default:
		m.Text += text
	}
}

// Messages returns the mails to an address (all when to is empty), oldest first.
func (s *Sink) Messages(to string) []Mail {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []Mail{}
	for _, m := range s.mail {
		if to == "" || strings.EqualFold(m.To, to) {
			out = append(out, m)
		}
	}
	return out
}

// WaitFor returns the newest mail to the address once more than after mails went to
// it, waiting up to timeout.
func (s *Sink) WaitFor(to string, after int, timeout time.Duration) (Mail, bool) {
	deadline := time.Now().Add(timeout)
	for {
		if ms := s.Messages(to); len(ms) > after {
			return ms[len(ms)-1], true
		}
		if time.Now().After(deadline) {
			return Mail{}, false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Count is how many mails went to the address.
func (s *Sink) Count(to string) int { return len(s.Messages(to)) }

// Handler serves GET /messages?to=<address> as a JSON array, oldest first, and
// DELETE /messages to forget everything.
func (s *Sink) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /messages", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(s.Messages(strings.ToLower(r.URL.Query().Get("to"))))
	})
	mux.HandleFunc("DELETE /messages", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.mail = nil
		s.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	return mux
}
