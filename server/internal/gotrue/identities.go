package gotrue

import (
	"net/http"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/httpx"
)

// Identities, as GoTrue has them: supabase-js getUserIdentities() reads the identities of
// GET /user; unlinkIdentity() is DELETE /user/identities/{id}, allowed only with
// MANUAL_LINKING_ENABLED (GoTrue's SECURITY_MANUAL_LINKING_ENABLED, off by default) and
// never for a user's last identity. Casus signs in with e-mail only (no OAuth providers to
// link), so a user has at most one identity of its own; the rules still hold for
// identities added by other means.

var errSingleIdentity = errf(422, "single_identity_not_deletable", "User must have at least 1 identity after unlinking")

func (s *Server) unlinkIdentity(w http.ResponseWriter, r *http.Request) error {
	if !s.d.Config.ManualLinkingEnabled {
		return errf(404, "manual_linking_disabled", "Manual linking is disabled")
	}
	u, _, err := s.currentUser(r)
	if err != nil {
		return err
	}
	id, err := parseUUID(r.PathValue("id"))
	if err != nil {
		return errf(404, "validation_failed", "identity_id must be an UUID")
	}
	ctx := r.Context()
	ids, err := s.q.IdentitiesByUser(ctx, u.ID)
	if err != nil {
		return err
	}
	if len(ids) <= 1 {
		return errSingleIdentity
	}
	var provider string
	for _, i := range ids {
		if i.ID == id {
			provider = i.Provider
		}
	}
	if provider == "" {
		return errf(422, "identity_not_found", "Identity doesn't exist")
	}
	err = pgx.BeginFunc(ctx, s.d.Owner, func(tx pgx.Tx) error {
		// Locks the user, so two unlinks at once cannot leave it without an identity.
		var left int
		if err := tx.QueryRow(ctx, `select count(*) from auth.identities where user_id = (
			select id from auth.users where id = $1 for update)`, u.ID).Scan(&left); err != nil {
			return err
		}
		if left <= 1 {
			return errSingleIdentity
		}
		if _, err := tx.Exec(ctx, "delete from auth.identities where id = $1 and user_id = $2", id, u.ID); err != nil {
			return err
		}
		// As GoTrue's UpdateAppMetaDataProviders: providers lists what remains, and the
		// e-mail follows the remaining identities when the e-mail identity went.
		if _, err := tx.Exec(ctx, `update auth.users set raw_app_meta_data = raw_app_meta_data || jsonb_build_object(
			  'providers', (select coalesce(jsonb_agg(distinct provider), '[]') from auth.identities where user_id = $1)),
			updated_at = now() where id = $1`, u.ID); err != nil {
			return err
		}
		if provider != "email" {
			return nil
		}
		_, err := tx.Exec(ctx, `update auth.users set email = coalesce(
			  (select i.email from auth.identities i where i.user_id = $1 and i.email is not null order by i.created_at limit 1), email)
			where id = $1`, u.ID)
		return err
	})
	if isUniqueViolation(err) {
		return errf(422, "email_conflict_identity_not_deletable", "Unable to unlink identity due to email conflict")
	}
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, 200, map[string]any{})
	return nil
}
