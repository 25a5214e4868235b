package postgrest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// Only the database being out of reach is PGRST001; the database's own errors, and a
// request that timed out or was abandoned, keep their answers.
func TestConnectionLost(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}
	for _, c := range []struct {
		err  error
		lost bool
	}{
		{fmt.Errorf("query: %w", io.ErrUnexpectedEOF), true},
		{fmt.Errorf("read: %w", refused), true},
		{fmt.Errorf("acquire: %w", pgconn.ErrConnClosed), true},
		{&pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}, false},
		{&pgconn.PgError{Code: "57014", Message: "canceling statement due to statement timeout"}, false},
		{fmt.Errorf("query: %w", context.Canceled), false},
		{fmt.Errorf("query: %w", context.DeadlineExceeded), false},
		{errors.New("something else"), false},
	} {
		if got := connectionLost(c.err); got != c.lost {
			t.Errorf("%v: lost=%v, want %v", c.err, got, c.lost)
		}
	}
	if e, ok := fromPG(fmt.Errorf("x: %w", io.EOF), false).(*Error); !ok || e.Status != 503 || e.Code != "PGRST001" || e.Details != nil {
		t.Fatalf("a lost connection answers %+v", e)
	}
}
