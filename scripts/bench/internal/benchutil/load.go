package benchutil

import (
	"bytes"
	"io"
	"net/http"
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
