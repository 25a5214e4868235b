package gotrue

import (
	"net/http"

	"casus/server/internal/db/dbsqlc"
)

func (s *Server) logout(w http.ResponseWriter, r *http.Request) error {
	u, sid, err := s.currentUser(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	switch r.URL.Query().Get("scope") {
	case "", "global":
		err = s.q.SessionsDeleteForUser(ctx, u.ID)
	case "local":
		err = s.q.SessionDelete(ctx, sid)
	case "others":
		err = s.q.SessionsDeleteOthers(ctx, dbsqlc.SessionsDeleteOthersParams{UserID: u.ID, Keep: sid})
	default:
		return errf(400, "validation_failed", "Unsupported logout scope %q", r.URL.Query().Get("scope"))
	}
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
