// Package smtpsink is a real SMTP server on loopback that keeps every message it
// receives, for tests of the mails the server sends.
package smtpsink

import (
	"bufio"
	"net"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Mail is one received message.
type Mail struct {
	From, To string
	Data     string
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
func Start() (*Sink, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
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
	r := bufio.NewReader(c)
	say := func(line string) { _, _ = c.Write([]byte(line + "\r\n")) }
	say("220 smtpsink ready")
	var m Mail
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		cmd := strings.ToUpper(strings.TrimSpace(line))
		switch {
		case strings.HasPrefix(cmd, "EHLO"), strings.HasPrefix(cmd, "HELO"):
			say("250 smtpsink")
		case strings.HasPrefix(cmd, "MAIL FROM:"):
			m = Mail{From: strings.Trim(strings.TrimSpace(line)[10:], "<> ")}
			say("250 OK")
		case strings.HasPrefix(cmd, "RCPT TO:"):
			m.To = strings.Trim(strings.TrimSpace(line)[8:], "<> ")
			say("250 OK")
		case cmd == "DATA":
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
				b.WriteString(strings.TrimPrefix(l, "."))
			}
			m.Data = b.String()
			s.mu.Lock()
			s.mail = append(s.mail, m)
			s.cond.Broadcast()
			s.mu.Unlock()
			say("250 OK queued")
		case cmd == "QUIT":
			say("221 bye")
			return
		default:
			say("250 OK")
		}
	}
}

// WaitFor returns the newest mail to the address, waiting up to timeout.
func (s *Sink) WaitFor(to string, after int, timeout time.Duration) (Mail, bool) {
	deadline := time.Now().Add(timeout)
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		n := 0
		for i := len(s.mail) - 1; i >= 0; i-- {
			if strings.EqualFold(s.mail[i].To, to) {
				n++
			}
		}
		if n > after {
			for i := len(s.mail) - 1; i >= 0; i-- {
				if strings.EqualFold(s.mail[i].To, to) {
					return s.mail[i], true
				}
			}
		}
		if time.Now().After(deadline) {
			return Mail{}, false
		}
		go func() { time.Sleep(20 * time.Millisecond); s.cond.Broadcast() }()
		s.cond.Wait()
	}
}

// Count is how many mails went to the address.
func (s *Sink) Count(to string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, m := range s.mail {
		if strings.EqualFold(m.To, to) {
			n++
		}
	}
	return n
}

var linkRe = regexp.MustCompile(`https?://[^\s"<>]+/auth/v1/verify\?[^\s"<>]+`)

// Link extracts the verification link of a mail.
func (m Mail) Link() string {
	return strings.ReplaceAll(linkRe.FindString(m.Data), "&amp;", "&")
}
