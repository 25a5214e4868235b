package gotrue

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"casus/server/internal/httpx"
)

// The MFA admin API (supabase-js auth.admin.mfa): a user's factors listed, renamed and
// deleted by an admin, as GoTrue's /admin/users/{id}/factors. Factors are written by
// casus_meta.user_factors_json, the function every user object uses.

func (s *Server) adminFactorRoutes(mux *http.ServeMux, h func(httpx.HandlerFunc) http.Handler) {
	mux.Handle("GET /auth/v1/admin/users/{id}/factors", h(s.admin(s.adminListFactors)))
	mux.Handle("PUT /auth/v1/admin/users/{id}/factors/{fid}", h(s.admin(s.adminUpdateFactor)))
	mux.Handle("DELETE /auth/v1/admin/users/{id}/factors/{fid}", h(s.admin(s.adminDeleteFactor)))
}

// adminListFactors answers the user's factors as a JSON array (GoTrue's user.Factors).
func (s *Server) adminListFactors(w http.ResponseWriter, r *http.Request) error {
	u, err := s.pathUser(r)
	if err != nil {
		return err
	}
	var out []byte
	err = s.d.Owner.QueryRow(r.Context(), "select coalesce(casus_meta.user_factors_json($1::uuid), '[]'::json)::text", u.ID).Scan(&out)
	if err != nil {
		return err
	}
	writeRawJSON(w, out)
	return nil
}

// adminFactor loads the {fid} factor of the {id} user, as its JSON object.
func (s *Server) adminFactor(r *http.Request) (pgtype.UUID, pgtype.UUID, []byte, error) {
	u, err := s.pathUser(r)
	if err != nil {
		return pgtype.UUID{}, pgtype.UUID{}, nil, err
	}
	fid, err := parseUUID(r.PathValue("fid"))
	if err != nil {
		return u.ID, fid, nil, errFactorIDInvalid
	}
	body, err := s.factorJSON(r, u.ID, fid)
	return u.ID, fid, body, err
}

func (s *Server) factorJSON(r *http.Request, uid, fid pgtype.UUID) ([]byte, error) {
	var body []byte
	err := s.d.Owner.QueryRow(r.Context(), `select f::text from json_array_elements(casus_meta.user_factors_json($1::uuid)) f
		where f->>'id' = $2::uuid::text`, uid, fid).Scan(&body)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, errFactorNotFound
	}
	return body, err
}

// adminDeleteFactor deletes the factor and answers it; the sessions it raised to aal2 fall
// back to aal1 (GoTrue's DowngradeSessionsToAAL1).
func (s *Server) adminDeleteFactor(w http.ResponseWriter, r *http.Request) error {
	_, fid, body, err := s.adminFactor(r)
	if err != nil {
		return err
	}
	if err := s.q.FactorDelete(r.Context(), fid); err != nil {
		return err
	}
	writeRawJSON(w, body)
	return nil
}

// adminUpdateFactor renames a factor (GoTrue also changes a phone factor's number; Casus
// has no phone factors).
func (s *Server) adminUpdateFactor(w http.ResponseWriter, r *http.Request) error {
	uid, fid, _, err := s.adminFactor(r)
	if err != nil {
		return err
	}
	var p struct {
		FriendlyName string `json:"friendly_name"`
		Phone        string `json:"phone"`
	}
	if err := decode(r, &p); err != nil {
		return err
	}
	if name := strings.TrimSpace(p.FriendlyName); name != "" {
		_, err := s.d.Owner.Exec(r.Context(), "update auth.mfa_factors set friendly_name = $2, updated_at = now() where id = $1", fid, name)
		if isUniqueViolation(err) {
			return errf(422, "mfa_factor_name_conflict", "A factor with the friendly name %q for this user already exists", p.FriendlyName)
		}
		if err != nil {
			return err
		}
	}
	body, err := s.factorJSON(r, uid, fid)
	if err != nil {
		return err
	}
	writeRawJSON(w, body)
	return nil
}

// writeRawJSON answers 200 with a JSON text PostgreSQL wrote.
func writeRawJSON(w http.ResponseWriter, body []byte) {
	httpx.WriteJSON(w, 200, json.RawMessage(body))
}
