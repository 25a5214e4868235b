package postgrest

import (
	"context"
	"errors"
	"io"
	"net"

	"github.com/jackc/pgx/v5/pgconn"
)

// errUnavailable is PostgREST's answer when the database cannot be reached or the
// connection broke (its client errors): 503, which supabase-js treats as transient. The
// driver's text (addresses, ports) stays in the log.
var errUnavailable = defUnavailable.new("", "")

// connectionLost reports whether err is the database being out of reach rather than an
// answer of the database: a failed connection attempt (even one the server refused
// while starting up) or a connection that closed under the request.
func connectionLost(err error) bool {
	var connect *pgconn.ConnectError
	if errors.As(err, &connect) {
		return true
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return false
	}
	// A request that ran out of time or whose client left is not an outage.
	if pgconn.Timeout(err) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var netErr net.Error
	return errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || errors.As(err, &netErr)
}
