// Package debugserver serves Go's runtime profiles (net/http/pprof) on a separate listener,
// only when CASUS_PPROF_ADDR is set, so the public handler never exposes them. It is meant
// for profiling the server under the benchmarks: a loopback address such as 127.0.0.1:6060.
package debugserver

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// Start listens on addr and serves /debug/pprof/ until ctx ends. Addresses that are not
// loopback are refused: profiles reveal memory contents and must not leave the machine.
func Start(ctx context.Context, addr string, log *slog.Logger) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("CASUS_PPROF_ADDR: %w", err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("CASUS_PPROF_ADDR must be a loopback address, not %q", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	log.Info("profiling endpoint listening", "addr", ln.Addr().String())
	return nil
}
