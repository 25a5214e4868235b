package gotrue

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"casus/server/internal/db/dbsqlc"
)

// The user object is written by appendUser alone, from a userRow. Read through GET
// /user's batch rows or through an auth.users row with its identities, the same user
// gives the same body: valid JSON, identities in creation order, awkward strings escaped
// as encoding/json escapes them, metadata passed through, {} for what is not an object.
func TestUserBodyFromEitherRowType(t *testing.T) {
	at := func(s string) pgtype.Timestamptz {
		tm, _ := time.Parse(time.RFC3339Nano, s)
		return pgtype.Timestamptz{Time: tm, Valid: true}
	}
	uid := pgtype.UUID{Bytes: [16]byte{0x12, 0x34, 0x56, 0x78, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, Valid: true}
	email := "ana\"\\<&>\u2028\x01\b\fș@example.ro\xff"
	base := dbsqlc.SessionUserIdentitiesBatchRow{
		ID: uid, Email: ptr(email), EmailConfirmedAt: at("2026-11-23T17:28:11.123456+02:00"),
		CreatedAt: at("2026-01-01T00:00:00Z"), UpdatedAt: at("2026-11-23T17:28:11.5Z"), IsAnonymous: true,
		RawAppMetaData: []byte(`{"provider": "email", "providers": ["email"]}`), RawUserMetaData: []byte(`{"name": "Ana \u0219i \"Ion\"", "n": [1, 2.5, null]}`),
	}
	id1, id2 := base, base
	id1.IdentityID = pgtype.UUID{Bytes: [16]byte{1}, Valid: true}
	id1.IdentityProviderID, id1.IdentityProvider, id1.IdentityEmail = ptr("prov-1"), ptr("email"), ptr("ana@example.ro")
	id1.IdentityData = []byte(`{"sub": "x", "email_verified": true}`)
	id1.IdentityCreatedAt, id1.IdentityUpdatedAt = at("2026-01-01T00:00:00Z"), at("2026-01-02T00:00:00Z")
	id2.IdentityID = pgtype.UUID{Bytes: [16]byte{2}, Valid: true}
	id2.IdentityProviderID, id2.IdentityProvider = ptr("prov-2"), ptr("github")
	id2.IdentityData = []byte(`[]`)                    // not an object: {}
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
				RawAppMetaData: u.RawAppMetaData, RawUserMetaData: u.RawUserMetaData, CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt,
				IsAnonymous: u.IsAnonymous}
			var ids []dbsqlc.AuthIdentity
			for _, r := range []dbsqlc.SessionUserIdentitiesBatchRow{id1, id2} {
				if name == "two identities" {
					ids = append(ids, dbsqlc.AuthIdentity{ID: r.IdentityID, ProviderID: deref(r.IdentityProviderID), UserID: uid,
						IdentityData: r.IdentityData, Provider: deref(r.IdentityProvider), LastSignInAt: r.IdentityLastSignInAt,
						CreatedAt: r.IdentityCreatedAt, UpdatedAt: r.IdentityUpdatedAt, Email: r.IdentityEmail})
				}
			}
			fromRow, err := json.Marshal(userFromRow(user, ids))
			if err != nil {
				t.Fatal(err)
			}
			fromBatch := appendUser(nil, ptr(userFromBatch(rows)))
			var compact bytes.Buffer
			if err := json.Compact(&compact, fromBatch); err != nil {
				t.Fatalf("invalid JSON %v: %s", err, fromBatch)
			}
			if string(fromRow) != compact.String() { // encoding/json compacts what MarshalJSON writes
				t.Fatalf("bodies differ:\n%s\n%s", fromRow, fromBatch)
			}
			var got map[string]any
			if err := json.Unmarshal(fromBatch, &got); err != nil {
				t.Fatalf("invalid JSON %v: %s", err, fromBatch)
			}
			wantEmail := ""
			if u.Email != nil {
				wantEmail = string([]rune(email)) // invalid UTF-8 becomes U+FFFD, as encoding/json writes it
			}
			if got["email"] != wantEmail || got["is_anonymous"] != true || got["aud"] != "authenticated" || got["id"] != uuidString(uid) {
				t.Fatalf("fields: %v", got)
			}
			if quoted, _ := json.Marshal(email); u.Email != nil && !bytes.Contains(fromBatch, quoted) {
				t.Fatalf("e-mail not escaped as encoding/json does: %s in %s", quoted, fromBatch)
			}
			idsGot := got["identities"].([]any)
			if name == "two identities" {
				if len(idsGot) != 2 || idsGot[0].(map[string]any)["id"] != "prov-1" ||
					!reflect.DeepEqual(idsGot[1].(map[string]any)["identity_data"], map[string]any{}) {
					t.Fatalf("identities: %v", idsGot)
				}
			} else if len(idsGot) != 0 {
				t.Fatalf("identities: %v", idsGot)
			}
			if name == "null metadata" && (!reflect.DeepEqual(got["user_metadata"], map[string]any{}) || got["created_at"] != nil) {
				t.Fatalf("null metadata: %v", got)
			}
		})
	}
}
