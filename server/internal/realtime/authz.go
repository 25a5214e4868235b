package realtime

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"casus/server/internal/authn"
	"casus/server/internal/db"
)

// Private channels are authorised as Supabase Realtime authorises them: by the caller's
// row-level security on realtime.messages (migration rt_private), evaluated as the caller
// (role, claims, realtime.topic() = the channel's topic without "realtime:").
//
//   - read (join, receive): probe rows for the topic and each extension are inserted by
//     the owner, then SELECTed as the caller; an extension is readable when its row comes
//     back. Everything is rolled back.
//   - write (send broadcast, track presence): a row for the topic and extension is
//     INSERTed as the caller; insufficient_privilege (RLS's WITH CHECK) means no.
//     Rolled back too.

// Extensions of realtime.messages that authorisation checks.
const (
	extBroadcast = "broadcast"
	extPresence  = "presence"
)

// errRollback ends an authorisation transaction without committing its probe rows.
var errRollback = errors.New("rollback")

var authzInfo = db.RequestInfo{Method: "GET", Path: "/realtime/v1"}

// authorizeRead reports, per extension, whether claims may read the topic.
func (s *Server) authorizeRead(claims *authn.Claims, subTopic string, exts []string) (map[string]bool, error) {
	ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
	defer cancel()
	ids := make([]string, len(exts))
	for i := range exts {
		ids[i] = newUUID()
	}
	out := make(map[string]bool, len(exts))
	err := db.AsRole(ctx, s.d.API, claims, db.ReadWrite, authzInfo, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "select set_config('realtime.topic', $1, true), set_config('casus.realtime_probe', 'on', true)", subTopic); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "select realtime.casus_authorization_probe($1::uuid[], $2, $3::text[])", ids, subTopic, exts); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, "select id::text from realtime.messages where id = any($1::uuid[])", ids)
		if err != nil {
			return err
		}
		seen := map[string]bool{}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			seen[id] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for i, ext := range exts {
			out[ext] = seen[ids[i]]
		}
		return errRollback
	})
	if err != nil && !errors.Is(err, errRollback) {
		return nil, err
	}
	return out, nil
}

// authorizeWrite reports whether claims may insert a message of the extension on the topic.
func (s *Server) authorizeWrite(claims *authn.Claims, subTopic, ext string) (bool, error) {
	ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
	defer cancel()
	allowed := false
	err := db.AsRole(ctx, s.d.API, claims, db.ReadWrite, authzInfo, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "select set_config('realtime.topic', $1, true)", subTopic); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "insert into realtime.messages (topic, extension) values ($1, $2)", subTopic, ext)
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "42501" { // insufficient_privilege: no policy lets it
			return errRollback
		}
		if err != nil {
			return err
		}
		allowed = true
		return errRollback
	})
	if err != nil && !errors.Is(err, errRollback) {
		return false, err
	}
	return allowed, nil
}

func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
