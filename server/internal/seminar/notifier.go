// Package seminar runs the seminars' one background job: the "deadline within 24 hours"
// notifications (sql/app 026, seminar_notify_deadlines). Everything else about seminars
// lives in the database (RLS and RPCs); the app also writes these notifications for a
// student when it loads (seminar_notifications_sync), so the job only makes them arrive
// live, through realtime, for students already online.
package seminar

import (
	"context"
	"net/http"
	"sync"
	"time"

	"casus/server/internal/deps"
)

// Interval between two runs; a notification is at most this late.
const Interval = 5 * time.Minute

// Notifier is the job; Close stops it and waits for a run in progress.
type Notifier struct {
	stop context.CancelFunc
	done sync.WaitGroup
}

// New starts the job on the owner pool. Every instance runs it: the inserts are
// idempotent (one notification per student and assignment).
func New(ctx context.Context, d deps.Deps) (*Notifier, error) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	n := &Notifier{stop: cancel}
	n.done.Add(1)
	go func() {
		defer n.done.Done()
		t := time.NewTicker(Interval)
		defer t.Stop()
		for {
			if _, err := d.Owner.Exec(ctx, `select public.seminar_notify_deadlines()`); err != nil && ctx.Err() == nil {
				d.Log.Warn("seminar deadline notifications", "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return n, nil
}

// Routes: the job serves nothing.
func (n *Notifier) Routes(*http.ServeMux) {}

func (n *Notifier) Close() error {
	n.stop()
	n.done.Wait()
	return nil
}
