// Package sim drives simulated students against a Casus server over its public HTTP and
// websocket surfaces, doing what the web app does: sign up and in, browse the tree,
// search, open cases, chat with the tutor, submit solutions for the AI check and grade,
// look at their progress, and listen for their own progress on a realtime channel. It
// records every request (kind, time, latency, outcome) for the load report
// (scripts/load) and the fault tests (server/internal/faults).
package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"
)

// Config is one run.
type Config struct {
	URL        string // http://127.0.0.1:PORT (loopback only)
	AnonKey    string
	ServiceKey string // optional: confirms sign-ups when the server does not autoconfirm
	Students   int
	Duration   time.Duration // how long each student keeps acting (from its start)
	Ramp       time.Duration // student starts are spread over this
	Think      time.Duration // mean pause between a student's actions
	Realtime   bool          // a websocket per student, joined to its progress
	Tag        string        // makes e-mails and usernames unique to the run
	// Accounts, when set (by Prepare), are the students' existing accounts: student i
	// signs in with Accounts[i] instead of signing up first.
	Accounts []Account
	// Texts, when set, receives the text of every submission the server accepted.
	OnSubmission func(id, text string)
}

// Event is one request as the client saw it.
type Event struct {
	Kind string
	At   time.Time // when it was sent
	Dur  time.Duration
	Err  string // empty when it succeeded
	// Status is the HTTP status (0: no answer at all, the connection failed).
	Status int
	// Shapeless marks an error answer of the AI gateway that is not the Messages API's
	// error object (or a stream that ended without message_stop or an error event).
	Shapeless bool
}

// Result is what a run observed.
type Result struct {
	Start, End time.Time
	Events     []Event
	// Realtime progress pushes: expected (one per write the student saw succeed on its
	// own submissions while subscribed) and received, and their delay after the write's
	// answer.
	PushExpected, PushReceived int
	PushDelays                 []time.Duration
	PushMissed                 []time.Time // when the writes whose push never came were answered
	WSReconnects               int
	Submissions                int
	// PushesLostWithConnection: pushes awaited on a connection that broke (a killed
	// instance), for changes committed before the re-join: not expected, not missed.
	PushesLostWithConnection int
}

// Kind summarises one request kind.
type Kind struct {
	Name     string
	AI       bool
	Count    int
	Errors   int
	P50, P99 time.Duration
	Samples  []string // a few error messages
}

// Kinds groups the events by kind, sorted by name.
func (r *Result) Kinds() []Kind {
	by := map[string]*Kind{}
	lat := map[string][]time.Duration{}
	for _, e := range r.Events {
		k := by[e.Kind]
		if k == nil {
			k = &Kind{Name: e.Kind, AI: strings.HasPrefix(e.Kind, "AI ")}
			by[e.Kind] = k
		}
		k.Count++
		if e.Err != "" {
			k.Errors++
			if len(k.Samples) < 3 {
				k.Samples = append(k.Samples, e.Err)
			}
			continue
		}
		lat[e.Kind] = append(lat[e.Kind], e.Dur)
	}
	var out []Kind
	for name, k := range by {
		k.P50, k.P99 = Percentile(lat[name], 50), Percentile(lat[name], 99)
		out = append(out, *k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Percentile returns the p-th percentile (0–100) of d (nearest rank).
func Percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(float64(len(s))*p/100+0.999999) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(s) {
		i = len(s) - 1
	}
	return s[i]
}

// CheckLoopback refuses a target that is not on this machine: the tool generates load.
func CheckLoopback(base string) error {
	u, err := url.Parse(base)
	if err != nil {
		return err
	}
	switch u.Hostname() {
	case "127.0.0.1", "localhost", "::1":
		return nil
	}
	return fmt.Errorf("%s is not a loopback address: the load generator only targets this machine", base)
}

// Account is a student's sign-in.
type Account struct{ Email, Password string }

// Prepare creates the accounts (with their profiles) of cfg.Students students, as each
// would sign up, a few at a time and unmeasured: the setup before a run in which
// returning students sign in. It sets cfg.Tag when empty; pass the same cfg to Run with
// the accounts in cfg.Accounts.
func Prepare(ctx context.Context, cfg *Config, workers int) ([]Account, error) {
	if err := CheckLoopback(cfg.URL); err != nil {
		return nil, err
	}
	if cfg.Tag == "" {
		cfg.Tag = fmt.Sprintf("%x", rand.Uint32())
	}
	tr := &http.Transport{MaxIdleConnsPerHost: workers}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 60 * time.Second}
	unis, err := universities(ctx, client, *cfg)
	if err != nil {
		return nil, fmt.Errorf("the server is not answering: %w", err)
	}
	accounts := make([]Account, cfg.Students)
	errs := make(chan error, cfg.Students)
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, workers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				rec := &recorder{}
				s := &student{cfg: *cfg, n: i, http: client, rec: rec, unis: unis}
				a := s.account()
				if !s.signUp(ctx, a) {
					msg := "failed"
					if len(rec.events) > 0 {
						msg = rec.events[len(rec.events)-1].Err
					}
					errs <- fmt.Errorf("creating student %d's account: %s", i, msg)
					continue
				}
				accounts[i] = a
			}
		}()
	}
	for i := 0; i < cfg.Students && ctx.Err() == nil && len(errs) == 0; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	return accounts, ctx.Err()
}

// Run drives cfg.Students students until each has acted for cfg.Duration (or ctx ends),
// then waits a little for the last realtime pushes.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if err := CheckLoopback(cfg.URL); err != nil {
		return nil, err
	}
	if cfg.Think <= 0 {
		cfg.Think = time.Second
	}
	if cfg.Tag == "" {
		cfg.Tag = fmt.Sprintf("%x", rand.Uint32())
	}
	r := &recorder{}
	tr := &http.Transport{MaxIdleConns: cfg.Students * 4, MaxIdleConnsPerHost: cfg.Students * 4, IdleConnTimeout: 30 * time.Second}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 60 * time.Second}
	unis, err := universities(ctx, client, cfg)
	if err != nil {
		return nil, fmt.Errorf("the server is not answering: %w", err)
	}
	res := &Result{Start: time.Now()}
	var wg sync.WaitGroup
	for i := 0; i < cfg.Students; i++ {
		var delay time.Duration
		if cfg.Students > 1 {
			delay = cfg.Ramp * time.Duration(i) / time.Duration(cfg.Students)
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			select {
			case <-time.After(delay):
			case <-ctx.Done():
				return
			}
			s := &student{cfg: cfg, n: i, http: client, rec: r, unis: unis, rng: rand.New(rand.NewPCG(uint64(i), uint64(time.Now().UnixNano())))}
			s.live(ctx, time.Now().Add(cfg.Duration))
		}(i)
	}
	wg.Wait()
	res.End = time.Now()
	// Pushes of the last writes may still be on their way.
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		r.mu.Lock()
		done := r.pushReceived >= r.pushExpected
		r.mu.Unlock()
		if done {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	missed := r.closeSockets()
	r.mu.Lock()
	defer r.mu.Unlock()
	res.PushMissed = missed
	res.Events = r.events
	res.PushExpected, res.PushReceived, res.PushDelays = r.pushExpected, r.pushReceived, r.pushDelays
	res.WSReconnects, res.Submissions = r.reconnects, r.submissions
	res.PushesLostWithConnection = r.pushLostWithConnection
	return res, nil
}

// recorder collects what all students saw.
type recorder struct {
	mu                         sync.Mutex
	events                     []Event
	pushExpected, pushReceived int
	pushLostWithConnection     int
	pushDelays                 []time.Duration
	reconnects, submissions    int
	sockets                    []*socket
}

func (r *recorder) add(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

// closeSockets ends the realtime connections and returns when the writes whose push
// never arrived were answered.
func (r *recorder) closeSockets() []time.Time {
	r.mu.Lock()
	ss := r.sockets
	r.mu.Unlock()
	var missed []time.Time
	for _, s := range ss {
		s.close()
		s.mu.Lock()
		for _, at := range s.waiting {
			missed = append(missed, at)
		}
		s.mu.Unlock()
	}
	return missed
}
