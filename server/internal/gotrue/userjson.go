package gotrue

import (
	"bytes"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"casus/server/internal/db/dbsqlc"
	"casus/server/internal/jsonx"
)

// userRow is GoTrue's user object, whatever statement read it: every answer that shows
// a user (sign-up, the token response, GET and PUT /user, the admin API) is written from
// one, by appendUser alone. Metadata and identity data are the jsonb text PostgreSQL
// sends (always valid JSON), copied as they are.
type userRow struct {
	ID                 pgtype.UUID
	Email              string
	EmailConfirmedAt   pgtype.Timestamptz
	InvitedAt          pgtype.Timestamptz // shown only when set, as GoTrue
	ConfirmedAt        pgtype.Timestamptz
	ConfirmationSentAt pgtype.Timestamptz
	RecoverySentAt     pgtype.Timestamptz
	NewEmail           string // a pending e-mail change (shown only when set, as GoTrue)
	EmailChangeSentAt  pgtype.Timestamptz
	LastSignInAt       pgtype.Timestamptz
	AppMetadata        []byte
	UserMetadata       []byte
	Factors            []byte // MFA factors as PostgreSQL wrote them (factors.go); omitted when none
	Identities         []identityRow
	CreatedAt          pgtype.Timestamptz
	UpdatedAt          pgtype.Timestamptz
	IsAnonymous        bool
}

// identityRow is one element of the user's identities.
type identityRow struct {
	ID           pgtype.UUID
	ProviderID   string
	UserID       pgtype.UUID
	Data         []byte
	Provider     string
	LastSignInAt pgtype.Timestamptz
	CreatedAt    pgtype.Timestamptz
	UpdatedAt    pgtype.Timestamptz
	Email        string
}

// MarshalJSON lets a userRow sit in a struct encoded by encoding/json.
func (u userRow) MarshalJSON() ([]byte, error) { return appendUser(nil, &u), nil }

// MarshalJSON writes one identity as GET /user/identities lists it.
func (i identityRow) MarshalJSON() ([]byte, error) { return appendIdentity(nil, &i), nil }

// userFromRow is the user object of an auth.users row and its identities.
func userFromRow(u dbsqlc.AuthUser, ids []dbsqlc.AuthIdentity) userRow {
	out := userRow{
		ID: u.ID, Email: deref(u.Email), EmailConfirmedAt: u.EmailConfirmedAt, InvitedAt: u.InvitedAt, ConfirmedAt: u.ConfirmedAt,
		ConfirmationSentAt: u.ConfirmationSentAt, RecoverySentAt: u.RecoverySentAt, NewEmail: deref(u.EmailChange),
		EmailChangeSentAt: u.EmailChangeSentAt, LastSignInAt: u.LastSignInAt, AppMetadata: u.RawAppMetaData,
		UserMetadata: u.RawUserMetaData, CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt, IsAnonymous: u.IsAnonymous,
		Identities: make([]identityRow, 0, len(ids)),
	}
	for _, i := range ids {
		out.Identities = append(out.Identities, identityRow{ID: i.ID, ProviderID: i.ProviderID, UserID: i.UserID,
			Data: i.IdentityData, Provider: i.Provider, LastSignInAt: i.LastSignInAt, CreatedAt: i.CreatedAt,
			UpdatedAt: i.UpdatedAt, Email: deref(i.Email)})
	}
	return out
}

// userFromBatch is the user object of SessionUserIdentitiesBatch's rows for one request
// (one row per identity, in any order).
func userFromBatch(rows []dbsqlc.SessionUserIdentitiesBatchRow) userRow {
	u := rows[0]
	out := userRow{
		ID: u.ID, Email: deref(u.Email), EmailConfirmedAt: u.EmailConfirmedAt, InvitedAt: u.InvitedAt, ConfirmedAt: u.ConfirmedAt,
		ConfirmationSentAt: u.ConfirmationSentAt, RecoverySentAt: u.RecoverySentAt, NewEmail: deref(u.EmailChange),
		EmailChangeSentAt: u.EmailChangeSentAt, LastSignInAt: u.LastSignInAt, AppMetadata: u.RawAppMetaData,
		UserMetadata: u.RawUserMetaData, CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt, IsAnonymous: u.IsAnonymous,
		Identities: make([]identityRow, 0, len(rows)),
	}
	if u.FactorsJson != "" {
		out.Factors = []byte(u.FactorsJson)
	}
	for _, r := range rows {
		if r.IdentityID.Valid {
			out.Identities = append(out.Identities, identityRow{ID: r.IdentityID, ProviderID: deref(r.IdentityProviderID),
				UserID: u.ID, Data: r.IdentityData, Provider: deref(r.IdentityProvider), LastSignInAt: r.IdentityLastSignInAt,
				CreatedAt: r.IdentityCreatedAt, UpdatedAt: r.IdentityUpdatedAt, Email: deref(r.IdentityEmail)})
		}
	}
	sortIdentities(out.Identities)
	return out
}

// sortIdentities orders identities as IdentitiesByUser lists them: by creation.
func sortIdentities(ids []identityRow) {
	sort.SliceStable(ids, func(i, j int) bool {
		a, c := ids[i].CreatedAt.Time, ids[j].CreatedAt.Time
		if !a.Equal(c) {
			return a.Before(c)
		}
		return bytes.Compare(ids[i].ID.Bytes[:], ids[j].ID.Bytes[:]) < 0
	})
}

// GET /user is the hot path of every page load, so its body is appended straight into a
// pooled buffer: no reflection, and the jsonb values are not validated again.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// writeUser writes the user object as a 200 answer.
func writeUser(w http.ResponseWriter, u *userRow) {
	bp := bufPool.Get().(*[]byte)
	b := append(appendUser((*bp)[:0], u), '\n')
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
	if cap(b) <= 64<<10 {
		*bp = b
		bufPool.Put(bp)
	}
}

// appendUser writes GoTrue's user object, its fields in GoTrue's order.
func appendUser(b []byte, u *userRow) []byte {
	b = append(b, `{"id":`...)
	b = appendUUID(b, u.ID)
	b = append(b, `,"aud":"authenticated","role":"authenticated","email":`...)
	b = jsonx.AppendString(b, u.Email)
	b = append(b, `,"phone":"","email_confirmed_at":`...)
	b = appendTime(b, u.EmailConfirmedAt)
	if u.InvitedAt.Valid {
		b = append(b, `,"invited_at":`...)
		b = appendTime(b, u.InvitedAt)
	}
	b = append(b, `,"confirmed_at":`...)
	b = appendTime(b, u.ConfirmedAt)
	b = append(b, `,"confirmation_sent_at":`...)
	b = appendTime(b, u.ConfirmationSentAt)
	b = append(b, `,"recovery_sent_at":`...)
	b = appendTime(b, u.RecoverySentAt)
	if u.NewEmail != "" {
		b = append(b, `,"new_email":`...)
		b = jsonx.AppendString(b, u.NewEmail)
		if u.EmailChangeSentAt.Valid {
			b = append(b, `,"email_change_sent_at":`...)
			b = appendTime(b, u.EmailChangeSentAt)
		}
	}
	b = append(b, `,"last_sign_in_at":`...)
	b = appendTime(b, u.LastSignInAt)
	b = append(b, `,"app_metadata":`...)
	b = appendJSONBObject(b, u.AppMetadata)
	b = append(b, `,"user_metadata":`...)
	b = appendJSONBObject(b, u.UserMetadata)
	if len(u.Factors) > 0 {
		b = append(b, `,"factors":`...)
		b = append(b, u.Factors...)
	}
	b = append(b, `,"identities":[`...)
	for n := range u.Identities {
		if n > 0 {
			b = append(b, ',')
		}
		b = appendIdentity(b, &u.Identities[n])
	}
	b = append(b, `],"created_at":`...)
	b = appendTime(b, u.CreatedAt)
	b = append(b, `,"updated_at":`...)
	b = appendTime(b, u.UpdatedAt)
	b = append(b, `,"is_anonymous":`...)
	b = strconv.AppendBool(b, u.IsAnonymous)
	return append(b, '}')
}

func appendIdentity(b []byte, i *identityRow) []byte {
	b = append(b, `{"identity_id":`...)
	b = appendUUID(b, i.ID)
	b = append(b, `,"id":`...)
	b = jsonx.AppendString(b, i.ProviderID)
	b = append(b, `,"user_id":`...)
	b = appendUUID(b, i.UserID)
	b = append(b, `,"identity_data":`...)
	b = appendJSONBObject(b, i.Data)
	b = append(b, `,"provider":`...)
	b = jsonx.AppendString(b, i.Provider)
	b = append(b, `,"last_sign_in_at":`...)
	b = appendTime(b, i.LastSignInAt)
	b = append(b, `,"created_at":`...)
	b = appendTime(b, i.CreatedAt)
	b = append(b, `,"updated_at":`...)
	b = appendTime(b, i.UpdatedAt)
	b = append(b, `,"email":`...)
	b = jsonx.AppendString(b, i.Email)
	return append(b, '}')
}

func appendUUID(b []byte, u pgtype.UUID) []byte {
	return jsonx.AppendString(b, uuidString(u))
}

// appendTime writes a timestamp as RFC 3339 in UTC, or null.
func appendTime(b []byte, t pgtype.Timestamptz) []byte {
	if !t.Valid {
		return append(b, "null"...)
	}
	b = append(b, '"')
	b = t.Time.UTC().AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// appendJSONBObject copies a jsonb value's text when it is an object, else writes {}.
func appendJSONBObject(b []byte, v []byte) []byte {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || v[0] != '{' {
		return append(b, "{}"...)
	}
	return append(b, v...)
}
