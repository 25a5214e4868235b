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

func (s *Server) adminList(w http.ResponseWriter, r *http.Request) error {
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	perPage, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if page < 1 {
		page = 1
	}
	if perPage < 1 || perPage > 1000 {
		perPage = 50
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
	out := make([]any, 0, len(users))
	for _, u := range users {
		out = append(out, s.userJSON(ctx, s.q, u))
	}
	w.Header().Set("X-Total-Count", strconv.FormatInt(total, 10))
	httpx.WriteJSON(w, 200, map[string]any{"users": out, "aud": "authenticated"})
	return nil
}

func (s *Server) adminCreate(w http.ResponseWriter, r *http.Request) error {
	var p adminUser
	if err := decode(r, &p); err != nil {
		return err
	}
	p.Email = strings.TrimSpace(p.Email)
	if !validEmail(p.Email) {
		return errInvalidEmail
	}
	params := dbsqlc.UserCreateParams{Email: p.Email, UserMeta: []byte("{}"), AppMeta: []byte(`{"provider":"email","providers":["email"]}`)}
	if p.Password != nil {
		hash, err := s.hashPassword(*p.Password)
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
		params.AppMeta = p.AppMetadata
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
		return errf(422, "email_exists", "A user with this email address has already been registered")
	}
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, 200, s.userJSON(ctx, s.q, u))
	return nil
}

func (s *Server) pathUser(r *http.Request) (dbsqlc.AuthUser, error) {
	id, err := parseUUID(r.PathValue("id"))
	if err != nil {
		return dbsqlc.AuthUser{}, errf(400, "validation_failed", "user_id must be an UUID")
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
	httpx.WriteJSON(w, 200, s.userJSON(r.Context(), s.q, u))
	return nil
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
	params := dbsqlc.UserAdminUpdateParams{ID: u.ID, Confirm: p.EmailConfirm, BannedUntil: u.BannedUntil}
	if len(p.UserMetadata) > 0 && string(p.UserMetadata) != "null" {
		params.UserMeta = p.UserMetadata
	}
	if len(p.AppMetadata) > 0 && string(p.AppMetadata) != "null" {
		params.AppMeta = p.AppMetadata
	}
	var newHash *string
	if p.Password != nil {
		if newHash, err = s.hashPassword(*p.Password); err != nil {
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
		if newHash == nil {
			return nil
		}
		// As GoTrue: a password set by an admin ends every session and pending link.
		return q.UserChangePassword(ctx, dbsqlc.UserChangePasswordParams{UserID: u.ID, EncryptedPassword: newHash})
	})
	if err != nil {
		return err
	}
	u, err = s.q.UserGetByID(ctx, u.ID)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, 200, s.userJSON(ctx, s.q, u))
	return nil
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
