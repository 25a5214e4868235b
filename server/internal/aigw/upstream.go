package aigw

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// upstream calls the Anthropic Messages API with the server's key, retrying 408, 409,
// 429 and 5xx twice with exponential backoff and jitter (honouring retry-after).
type upstream struct {
	base, key string
	client    *http.Client
	backoff   time.Duration
}

func retryable(status int) bool {
	return status == 408 || status == 409 || status == 429 || status >= 500
}

func (u *upstream) post(ctx context.Context, body []byte, stream bool) (*http.Response, error) {
	var last *http.Response
	for attempt := 0; attempt < 3; attempt++ {
		if attempt > 0 {
			wait := u.backoff * time.Duration(1<<(attempt-1))
			wait += time.Duration(rand.Int64N(int64(wait/2) + 1))
			if last != nil {
				if s, err := strconv.Atoi(last.Header.Get("retry-after")); err == nil && s >= 0 && s <= 60 {
					wait = time.Duration(s) * time.Second
				}
				last.Body.Close()
			}
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		req, err := http.NewRequestWithContext(ctx, "POST", u.base+"/v1/messages", bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("x-api-key", u.key)
		req.Header.Set("anthropic-version", "2023-06-01")
		req.Header.Set("content-type", "application/json")
		if stream {
			req.Header.Set("accept", "text/event-stream")
		}
		res, err := u.client.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			last = nil
			if attempt == 2 {
				return nil, err
			}
			continue
		}
		if !retryable(res.StatusCode) || attempt == 2 {
			return res, nil
		}
		last = res
	}
	return last, nil
}

// drain reads a reply (up to 4 MB); an error means the connection broke mid-reply.
func drain(r io.ReadCloser) ([]byte, error) {
	defer r.Close()
	return io.ReadAll(io.LimitReader(r, 4<<20))
}
