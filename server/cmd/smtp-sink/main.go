// Command smtp-sink is the test SMTP server: it keeps every mail it receives and serves
// them as JSON (GET /messages?to=<address>). scripts/with-server.sh runs it.
//
//	smtp-sink -smtp 127.0.0.1:2525 -http 127.0.0.1:2526
package main

import (
	"flag"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"casus/server/internal/mail/smtpsink"
)

func main() {
	smtpAddr := flag.String("smtp", "127.0.0.1:2525", "SMTP listen address")
	httpAddr := flag.String("http", "127.0.0.1:2526", "HTTP listen address (mail as JSON)")
	flag.Parse()
	for _, a := range []string{*smtpAddr, *httpAddr} {
		if host, _, err := net.SplitHostPort(a); err != nil || !net.ParseIP(host).IsLoopback() {
			log.Fatalf("smtp-sink listens on loopback only, not %q", a)
		}
	}
	sink, err := smtpsink.Listen(*smtpAddr)
	if err != nil {
		log.Fatal(err)
	}
	defer sink.Close()
	ln, err := net.Listen("tcp", *httpAddr)
	if err != nil {
		log.Fatal(err)
	}
	go func() { log.Fatal(http.Serve(ln, sink.Handler())) }()
	log.Printf("smtp-sink: SMTP on %s, mail as JSON on http://%s/messages", sink.Addr, ln.Addr())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
}
