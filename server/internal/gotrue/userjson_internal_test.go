package gotrue

import (
	"encoding/json"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"casus/server/internal/db/dbsqlc"
)

// The hand-written GET /user body must decode to exactly what encoding/json makes of
// userObject for the same rows: same keys, values and escaping of awkward strings.
func TestUserJSONMatchesEncoder(t *testing.T) {
	at := func(s string) pgtype.Timestamptz {
		tm, _ := time.Parse(time.RFC3339Nano, s)
		return pgtype.Timestamptz{Time: tm, Valid: true}
	}
	uid := pgtype.UUID{Bytes: [16]byte{0x12, 0x34, 0x56, 0x78, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, Valid: true}
	base := dbsqlc.SessionUserIdentitiesBatchRow{
		ID: uid, Email: ptr("ana\"\\<&>\u2028\x01ș@example.ro\xff"), EmailConfirmedAt: at("2026-11-23T17:28:11.123456+02:00"),
		CreatedAt: at("2026-01-01T00:00:00Z"), UpdatedAt: at("2026-11-23T17:28:11.5Z"),
		RawAppMetaData: []byte(`{"provider": "email", "providers": ["email"]}`), RawUserMetaData: []byte(`{"name": "Ana \u0219i \"Ion\"", "n": [1, 2.5, null]}`),
	}
	id1, id2 := base, base
	id1.IdentityID = pgtype.UUID{Bytes: [16]byte{1}, Valid: true}
	id1.IdentityProviderID, id1.IdentityProvider, id1.IdentityEmail = ptr("prov-1"), ptr("email"), ptr("ana@example.ro")
	id1.IdentityData = []byte(`{"sub": "x", "email_verified": true}`)
	id1.IdentityCreatedAt, id1.IdentityUpdatedAt = at("2026-01-01T00:00:00Z"), at("2026-01-02T00:00:00Z")
	id2.IdentityID = pgtype.UUID{Bytes: [16]byte{2}, Valid: true}
	id2.IdentityProviderID, id2.IdentityProvider = ptr("prov-2"), ptr("github")
	id2.IdentityData = []byte(`[]`)                    // not an object: {} as jsonObject does
	id2.IdentityCreatedAt = at("2026-02-01T00:00:00Z") // listed second although its row comes first
	noMeta := base
	noMeta.RawUserMetaData, noMeta.Email, noMeta.CreatedAt = nil, nil, pgtype.Timestamptz{}

	for name, rows := range map[string][]dbsqlc.SessionUserIdentitiesBatchRow{
		"no identities": {base}, "two identities": {id2, id1}, "null metadata": {noMeta},
	} {
		t.Run(name, func(t *testing.T) {
			u := rows[0]
			user := dbsqlc.AuthUser{ID: u.ID, Email: u.Email, EmailConfirmedAt: u.EmailConfirmedAt, ConfirmedAt: u.ConfirmedAt,
				ConfirmationSentAt: u.ConfirmationSentAt, RecoverySentAt: u.RecoverySentAt, LastSignInAt: u.LastSignInAt,
				RawAppMetaData: u.RawAppMetaData, RawUserMetaData: u.RawUserMetaData, CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt}
			identities := []any{}
			sorted := append([]dbsqlc.SessionUserIdentitiesBatchRow(nil), rows...)
			sort.Slice(sorted, func(i, j int) bool { return sorted[i].IdentityCreatedAt.Time.Before(sorted[j].IdentityCreatedAt.Time) })
			for _, r := range sorted {
				if !r.IdentityID.Valid {
					continue
				}
				var data map[string]any
				_ = json.Unmarshal(r.IdentityData, &data)
				if data == nil {
					data = map[string]any{}
				}
				identities = append(identities, map[string]any{
					"identity_id": uuidString(r.IdentityID), "id": deref(r.IdentityProviderID), "user_id": uuidString(u.ID),
					"identity_data": data, "provider": deref(r.IdentityProvider), "last_sign_in_at": ts(r.IdentityLastSignInAt),
					"created_at": ts(r.IdentityCreatedAt), "updated_at": ts(r.IdentityUpdatedAt), "email": deref(r.IdentityEmail),
				})
			}
			want, err := json.Marshal(userObject(user, identities))
			if err != nil {
				t.Fatal(err)
			}
			got := appendSessionUser(nil, rows)
			if !json.Valid(got) {
				t.Fatalf("invalid JSON: %s", got)
			}
			var g, w any
			_ = json.Unmarshal(got, &g)
			_ = json.Unmarshal(want, &w)
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// appendString escapes like encoding/json, byte for byte.
func TestAppendStringMatchesEncoder(t *testing.T) {
	for _, s := range []string{"", "plain", "q\"b\\s/", "<script>&amp;", "\x00\x1f\t\n\r", "ș ț ă î â", "\u2028\u2029", "bad\xffutf8\xc3", "emoji 😀"} {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); string(got) != string(want) {
			t.Errorf("%q: got %s want %s", s, got, want)
		}
	}
}
