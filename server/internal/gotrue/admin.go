package gotrue

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"casus/server/internal/db/dbsqlc"
	"casus/server/internal/httpx"
)

func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}

type adminUser struct {
	Email        string          `json:"email"`
	Password     *string         `json:"password"`
	EmailConfirm bool            `json:"email_confirm"`
	UserMetadata json.RawMessage `json:"user_metadata"`
	AppMetadata  json.RawMessage `json:"app_metadata"`
	BanDuration  string          `json:"ban_duration"`
}

// mergeObjects returns base with the keys of over set on it (both JSON objects); the
// result is bounded like the metadata it is made from.
func mergeObjects(base, over []byte) ([]byte, error) {
	var b, o map[string]any
	if json.Unmarshal(base, &b) != nil || json.Unmarshal(over, &o) != nil || o == nil {
		return nil, errf(400, "validation_failed", "app_metadata must be a JSON object")
	}
	if b == nil {
		b = map[string]any{}
	}
	for k, v := range o {
		if v == nil {
			delete(b, k) // GoTrue: a null value removes the key
			continue
		}
		b[k] = v
	}
	out, err := json.Marshal(b)
	if err == nil && len(out) > maxMetadataBytes {
		return nil, errMetadataTooLarge("app_metadata")
	}
	return out, err
}

// checkMetadata bounds the metadata an admin sets, as sign-up and PUT /user do.
func (p adminUser) checkMetadata() error {
	if len(p.UserMetadata) > maxMetadataBytes {
		return errMetadataTooLarge("user_metadata")
	}
	if len(p.AppMetadata) > maxMetadataBytes {
		return errMetadataTooLarge("app_metadata")
	}
	return nil
}

// pageParam reads a positive page or per_page value; absent is def.
func pageParam(r *http.Request, name string, def int) (int, error) {
	raw := r.URL.Query().Get(name)
	if raw == "" {
		return def, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 {
		return 0, errf(400, "validation_failed", "Bad Pagination Parameters: %s must be a positive integer", name)
	}
	return n, nil
}

func (s *Server) adminList(w http.ResponseWriter, r *http.Request) error {
	page, perPage, err := pagination(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	users, err := s.q.UsersList(ctx, dbsqlc.UsersListParams{Lim: int32(perPage), Off: int32((page - 1) * perPage)})
	if err != nil {
		return err
	}
	total, err := s.q.UsersCount(ctx)
	if err != nil {
		return err
	}
	out := make([]userRow, 0, len(users))
	for _, u := range users {
		body, err := s.loadUser(ctx, s.q, u)
		if err != nil {
			return err
		}
		out = append(out, body)
	}
	paginationHeaders(w, r, page, perPage, total)
	httpx.WriteJSON(w, 200, map[string]any{"users": out, "aud": "authenticated"})
	return nil
}

func (s *Server) adminCreate(w http.ResponseWriter, r *http.Request) error {
	var p adminUser
	if err := decode(r, &p); err != nil {
		return err
	}
	p.Email = strings.TrimSpace(p.Email)
	if p.Email == "" {
		return errf(400, "validation_failed", "Cannot create a user without either an email or phone")
	}
	if !validEmail(p.Email) {
		return errInvalidEmail
	}
	params := dbsqlc.UserCreateParams{Email: p.Email, UserMeta: []byte("{}"), AppMeta: []byte(emailAppMetadata)}
	if p.Password != nil {
		hash, err := s.hashPassword(r.Context(), *p.Password)
		if err != nil {
			return err
		}
		params.EncryptedPassword = hash
	}
	if err := p.checkMetadata(); err != nil {
		return err
	}
	if len(p.UserMetadata) > 0 && string(p.UserMetadata) != "null" {
		params.UserMeta = p.UserMetadata
	}
	if len(p.AppMetadata) > 0 && string(p.AppMetadata) != "null" {
		// As GoTrue: provider and providers are set first, the admin's keys merged over them.
		merged, err := mergeObjects([]byte(emailAppMetadata), p.AppMetadata)
		if err != nil {
			return err
		}
		params.AppMeta = merged
	}
	if p.EmailConfirm {
		params.EmailConfirmedAt = now()
	}
	ctx := r.Context()
	var u dbsqlc.AuthUser
	err := pgx.BeginFunc(ctx, s.d.Owner, func(tx pgx.Tx) error {
		var err error
		u, err = s.createUser(ctx, s.q.WithTx(tx), params, p.EmailConfirm)
		return err
	})
	if isUniqueViolation(err) {
		return errEmailExists
	}
	if err != nil {
		return err
	}
	return s.respondUser(ctx, w, u)
}

func (s *Server) pathUser(r *http.Request) (dbsqlc.AuthUser, error) {
	id, err := parseUUID(r.PathValue("id"))
	if err != nil {
		return dbsqlc.AuthUser{}, errf(404, "validation_failed", "user_id must be an UUID") // GoTrue: a 404
	}
	u, err := s.q.UserGetByID(r.Context(), id)
	if errors.Is(err, pgx.ErrNoRows) {
		return u, errUserNotFound
	}
	return u, err
}

func (s *Server) adminGet(w http.ResponseWriter, r *http.Request) error {
	u, err := s.pathUser(r)
	if err != nil {
		return err
	}
	return s.respondUser(r.Context(), w, u)
}

func (s *Server) adminUpdate(w http.ResponseWriter, r *http.Request) error {
	u, err := s.pathUser(r)
	if err != nil {
		return err
	}
	var p adminUser
	if err := decode(r, &p); err != nil {
		return err
	}
	if err := p.checkMetadata(); err != nil {
		return err
	}
	newEmail := strings.TrimSpace(p.Email)
	if strings.EqualFold(newEmail, deref(u.Email)) {
		newEmail = ""
	}
	if newEmail != "" {
		if !validEmail(newEmail) {
			return errInvalidEmail
		}
		if _, err := s.q.UserGetByEmail(r.Context(), newEmail); err == nil {
			return errEmailExists
		} else if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
	}
	params := dbsqlc.UserAdminUpdateParams{ID: u.ID, Confirm: p.EmailConfirm, BannedUntil: u.BannedUntil}
	if len(p.UserMetadata) > 0 && string(p.UserMetadata) != "null" {
		params.UserMeta = p.UserMetadata
	}
	if len(p.AppMetadata) > 0 && string(p.AppMetadata) != "null" {
		// As GoTrue, the keys given are merged into the stored app_metadata.
		merged, err := mergeObjects(u.RawAppMetaData, p.AppMetadata)
		if err != nil {
			return err
		}
		params.AppMeta = merged
	}
	var newHash *string
	if p.Password != nil {
		if newHash, err = s.hashPassword(r.Context(), *p.Password); err != nil {
			return err
		}
	}
	switch p.BanDuration {
	case "":
	case "none":
		params.BannedUntil = pgtype.Timestamptz{}
	default:
		d, err := time.ParseDuration(p.BanDuration)
		if err != nil {
			return errf(400, "validation_failed", "invalid format for ban duration: %v", err)
		}
		params.BannedUntil = pgtype.Timestamptz{Time: time.Now().Add(d), Valid: true}
	}
	ctx := r.Context()
	err = pgx.BeginFunc(ctx, s.d.Owner, func(tx pgx.Tx) error {
		q := s.q.WithTx(tx)
		if err := q.UserAdminUpdate(ctx, params); err != nil {
			return err
		}
		if newEmail != "" {
			// As GoTrue: an admin's change applies at once, to the user and its e-mail identity.
			if _, err := tx.Exec(ctx, "update auth.users set email = $2, updated_at = now() where id = $1", u.ID, newEmail); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `update auth.identities set identity_data = identity_data || jsonb_build_object('email', $2::text), updated_at = now()
				where user_id = $1 and provider = 'email'`, u.ID, newEmail); err != nil {
				return err
			}
		}
		if newHash == nil {
			return nil
		}
		// As GoTrue: a password set by an admin ends every session and pending link.
		return q.UserChangePassword(ctx, dbsqlc.UserChangePasswordParams{UserID: u.ID, EncryptedPassword: newHash})
	})
	if isUniqueViolation(err) {
		return errEmailExists
	}
	if err != nil {
		return err
	}
	u, err = s.q.UserGetByID(ctx, u.ID)
	if err != nil {
		return err
	}
	return s.respondUser(ctx, w, u)
}

func (s *Server) adminDelete(w http.ResponseWriter, r *http.Request) error {
	u, err := s.pathUser(r)
	if err != nil {
		return err
	}
	if err := s.q.UserDelete(r.Context(), u.ID); err != nil {
		return err
	}
	httpx.WriteJSON(w, 200, map[string]any{})
	return nil
}
