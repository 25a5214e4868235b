package gotrue

import (
	"bytes"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgtype"

	"casus/server/internal/db/dbsqlc"
)

// GET /user is the hot path of every page load, so its body is appended straight into a
// pooled buffer: no reflection, and the jsonb values PostgreSQL sends (always valid JSON)
// are copied as they are instead of being validated and compacted again by
// encoding/json. TestUserJSONMatchesEncoder keeps it equal to userObject's encoding.

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// writeSessionUser writes the user of SessionUserIdentitiesBatch's rows for one request (one per identity).
func writeSessionUser(w http.ResponseWriter, rows []dbsqlc.SessionUserIdentitiesBatchRow) {
	bp := bufPool.Get().(*[]byte)
	b := appendSessionUser((*bp)[:0], rows)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
	if cap(b) <= 64<<10 {
		*bp = b
		bufPool.Put(bp)
	}
}

func appendSessionUser(b []byte, rows []dbsqlc.SessionUserIdentitiesBatchRow) []byte {
	if len(rows) > 1 { // identities in creation order, as IdentitiesByUser lists them
		sort.SliceStable(rows, func(i, j int) bool {
			a, c := rows[i].IdentityCreatedAt.Time, rows[j].IdentityCreatedAt.Time
			if !a.Equal(c) {
				return a.Before(c)
			}
			return bytes.Compare(rows[i].IdentityID.Bytes[:], rows[j].IdentityID.Bytes[:]) < 0
		})
	}
	u := rows[0]
	id := uuidString(u.ID)
	b = append(b, `{"id":`...)
	b = appendString(b, id)
	b = append(b, `,"aud":"authenticated","role":"authenticated","email":`...)
	b = appendString(b, deref(u.Email))
	b = append(b, `,"phone":"","email_confirmed_at":`...)
	b = appendTime(b, u.EmailConfirmedAt)
	b = append(b, `,"confirmed_at":`...)
	b = appendTime(b, u.ConfirmedAt)
	b = append(b, `,"confirmation_sent_at":`...)
	b = appendTime(b, u.ConfirmationSentAt)
	b = append(b, `,"recovery_sent_at":`...)
	b = appendTime(b, u.RecoverySentAt)
	b = append(b, `,"last_sign_in_at":`...)
	b = appendTime(b, u.LastSignInAt)
	b = append(b, `,"app_metadata":`...)
	b = appendJSONBObject(b, u.RawAppMetaData)
	b = append(b, `,"user_metadata":`...)
	b = appendJSONBObject(b, u.RawUserMetaData)
	if u.FactorsJson != "" { // MFA factors, as PostgreSQL wrote them (factors.go)
		b = append(b, `,"factors":`...)
		b = append(b, u.FactorsJson...)
	}
	b = append(b, `,"identities":[`...)
	n := 0
	for _, r := range rows {
		if !r.IdentityID.Valid {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = append(b, `{"identity_id":`...)
		b = appendString(b, uuidString(r.IdentityID))
		b = append(b, `,"id":`...)
		b = appendString(b, deref(r.IdentityProviderID))
		b = append(b, `,"user_id":`...)
		b = appendString(b, id)
		b = append(b, `,"identity_data":`...)
		b = appendJSONBObject(b, r.IdentityData)
		b = append(b, `,"provider":`...)
		b = appendString(b, deref(r.IdentityProvider))
		b = append(b, `,"last_sign_in_at":`...)
		b = appendTime(b, r.IdentityLastSignInAt)
		b = append(b, `,"created_at":`...)
		b = appendTime(b, r.IdentityCreatedAt)
		b = append(b, `,"updated_at":`...)
		b = appendTime(b, r.IdentityUpdatedAt)
		b = append(b, `,"email":`...)
		b = appendString(b, deref(r.IdentityEmail))
		b = append(b, '}')
	}
	b = append(b, `],"created_at":`...)
	b = appendTime(b, u.CreatedAt)
	b = append(b, `,"updated_at":`...)
	b = appendTime(b, u.UpdatedAt)
	b = append(b, `,"is_anonymous":false}`...)
	return append(b, '\n')
}

// appendTime writes a timestamp as ts does (RFC 3339 in UTC), or null.
func appendTime(b []byte, t pgtype.Timestamptz) []byte {
	if !t.Valid {
		return append(b, "null"...)
	}
	b = append(b, '"')
	b = t.Time.UTC().AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// appendJSONBObject copies a jsonb value's text (PostgreSQL only ever sends valid JSON
// for jsonb) when it is an object, else writes {} as jsonObject does.
func appendJSONBObject(b []byte, v []byte) []byte {
	if len(v) == 0 || v[0] != '{' {
		return append(b, "{}"...)
	}
	return append(b, v...)
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string, escaping as encoding/json does (quotes,
// backslashes, control characters, <, >, &, U+2028/9; invalid UTF-8 becomes U+FFFD).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
