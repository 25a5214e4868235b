package benchutil

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Client is a keep-alive HTTP client sized for the concurrency.
func Client(conc int) *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConns: conc * 2, MaxIdleConnsPerHost: conc * 2}, Timeout: 30 * time.Second}
}

// Run calls fn from conc workers for d and returns operations per second and latencies.
func Run(conc int, d time.Duration, fn func(worker int) error) (float64, []time.Duration, int64) {
	var ops, errs atomic.Int64
	var mu sync.Mutex
	var lats []time.Duration
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var local []time.Duration
			for time.Now().Before(deadline) {
				t0 := time.Now()
				if err := fn(w); err != nil {
					errs.Add(1)
					continue
				}
				local = append(local, time.Since(t0))
				ops.Add(1)
			}
			mu.Lock()
			lats = append(lats, local...)
			mu.Unlock()
		}(w)
	}
	wg.Wait()
	return float64(ops.Load()) / time.Since(start).Seconds(), lats, errs.Load()
}

// RunSteady measures fn's steady-state rate: conc workers call it for warm, then for the
// window d, then stop. Only operations that finish inside the window count, divided by d,
// so neither the start (the first calls all arriving at once) nor the drain (the last
// calls finishing one by one, with cores idle) weighs in; Run includes both. sample runs
// at the window's two edges while the workers are busy (nil: none).
func RunSteady(conc int, warm, d time.Duration, fn func(worker int) error, sample func()) (float64, []time.Duration, int64) {
	var stop atomic.Bool
	var errs atomic.Int64
	type done struct{ at, took time.Duration }
	finished := make([][]done, conc)
	origin := time.Now()
	var wg sync.WaitGroup
	for w := range conc {
		wg.Go(func() {
			for !stop.Load() {
				t0 := time.Since(origin)
				if err := fn(w); err != nil {
					errs.Add(1)
					continue
				}
				at := time.Since(origin)
				finished[w] = append(finished[w], done{at, at - t0})
			}
		})
	}
	time.Sleep(warm)
	if sample != nil {
		sample()
	}
	from := time.Since(origin)
	time.Sleep(d)
	to := time.Since(origin)
	if sample != nil {
		sample()
	}
	stop.Store(true)
	wg.Wait()
	var lats []time.Duration
	for _, f := range finished {
		for _, o := range f {
			if o.at >= from && o.at < to {
				lats = append(lats, o.took)
			}
		}
	}
	return float64(len(lats)) / (to - from).Seconds(), lats, errs.Load()
}

// Do sends a request and drains the body, failing on non-2xx.
func Do(c *http.Client, method, url string, body []byte, hdr map[string]string) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return nil, err
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode >= 300 {
		return b, &StatusError{res.StatusCode, string(b)}
	}
	return b, nil
}

// StatusError is a non-2xx answer.
type StatusError struct {
	Status int
	Body   string
}

func (e *StatusError) Error() string { return http.StatusText(e.Status) + ": " + e.Body }

// RawConn is a minimal keep-alive HTTP/1.1 client on one connection, the way wrk-style
// load generators work: the request bytes are prepared once and each call writes them and
// reads one response (Content-Length or chunked). The load generator shares the CPU with
// the server and PostgreSQL, so its own cost per request is kept close to that of the
// pgx client it is compared with; net/http's client spends about twice as much.
type RawConn struct {
	conn net.Conn
	r    *bufio.Reader
	req  []byte // request line and headers, without the blank line that ends them
	out  []byte // the message being sent, reused
	body []byte
}

// DialRaw connects to base (http://host:port) for repeated requests of method and path
// with the headers; Do sends them without a body, DoBody with one.
func DialRaw(base, method, path string, hdr map[string]string) (*RawConn, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: casus-bench\r\n", method, path, u.Host)
	for k, v := range hdr {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	return &RawConn{conn: c, r: bufio.NewReaderSize(c, 16<<10), req: []byte(b.String())}, nil
}

// Close closes the connection.
func (rc *RawConn) Close() error { return rc.conn.Close() }

// Do sends the request and returns the status and the body (valid until the next call).
func (rc *RawConn) Do() (int, []byte, error) {
	return rc.DoBody(nil)
}

// DoBody sends the request with body (none when nil) in one write and reads the answer
// like Do.
func (rc *RawConn) DoBody(body []byte) (int, []byte, error) {
	msg := append(rc.out[:0], rc.req...)
	if body != nil {
		msg = strconv.AppendInt(append(msg, "Content-Length: "...), int64(len(body)), 10)
		msg = append(msg, "\r\n"...)
	}
	msg = append(append(msg, "\r\n"...), body...)
	rc.out = msg
	if _, err := rc.conn.Write(msg); err != nil {
		return 0, nil, err
	}
	line, err := rc.r.ReadSlice('\n')
	if err != nil {
		return 0, nil, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) {
		return 0, nil, fmt.Errorf("bad status line %q", line)
	}
	status, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, nil, fmt.Errorf("bad status line %q", line)
	}
	length, chunked := -1, false
	for {
		line, err = rc.r.ReadSlice('\n')
		if err != nil {
			return 0, nil, err
		}
		if len(line) <= 2 {
			break
		}
		k, v, _ := bytes.Cut(bytes.TrimRight(line, "\r\n"), []byte(":"))
		v = bytes.TrimSpace(v)
		switch {
		case bytes.EqualFold(k, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(v)); err != nil {
				return 0, nil, err
			}
		case bytes.EqualFold(k, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(v, []byte("chunked"))
		}
	}
	rc.body = rc.body[:0]
	switch {
	case chunked:
		for {
			line, err = rc.r.ReadSlice('\n')
			if err != nil {
				return 0, nil, err
			}
			n, err := strconv.ParseInt(string(bytes.TrimSpace(line)), 16, 32)
			if err != nil {
				return 0, nil, err
			}
			if n == 0 {
				if _, err = rc.r.ReadSlice('\n'); err != nil { // no trailers: the final CRLF
					return 0, nil, err
				}
				break
			}
			if rc.body, err = readN(rc.r, rc.body, int(n)+2); err != nil {
				return 0, nil, err
			}
			rc.body = rc.body[:len(rc.body)-2]
		}
	case length >= 0:
		if rc.body, err = readN(rc.r, rc.body, length); err != nil {
			return 0, nil, err
		}
	default:
		return 0, nil, fmt.Errorf("response without length")
	}
	return status, rc.body, nil
}

func readN(r *bufio.Reader, dst []byte, n int) ([]byte, error) {
	start := len(dst)
	if cap(dst)-start < n {
		grown := make([]byte, start, start+n)
		copy(grown, dst)
		dst = grown
	}
	dst = dst[:start+n]
	_, err := io.ReadFull(r, dst[start:])
	return dst, err
}
