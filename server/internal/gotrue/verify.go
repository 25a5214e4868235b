package gotrue

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"casus/server/internal/db/dbsqlc"
	"casus/server/internal/httpx"
)

// verifyGet follows a mailed link and redirects with the session in the fragment (or a
// PKCE code in the query), so supabase-js signs the browser in. A code is issued only
// for the flow created by the same request as the link.
func (s *Server) verifyGet(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	redirect, err := s.redirectTo(q.Get("redirect_to"))
	if err != nil {
		return err
	}
	typ := q.Get("type")
	ctx := r.Context()
	link, err := s.consume(ctx, q.Get("token"), typ)
	if err != nil {
		var e *Error
		if errors.As(err, &e) && e.Code == errOTPExpired.Code {
			frag := url.Values{"error": {"access_denied"}, "error_code": {e.Code}, "error_description": {e.Msg}}
			http.Redirect(w, r, redirect+"#"+frag.Encode(), http.StatusSeeOther)
			return nil
		}
		return err
	}
	if link.pending {
		frag := url.Values{"message": {singleConfirmationAccepted}}
		http.Redirect(w, r, redirect+"#"+frag.Encode(), http.StatusSeeOther)
		return nil
	}
	u := link.user
	fs, err := s.q.FlowStateByUser(ctx, dbsqlc.FlowStateByUserParams{UserID: u.ID, AuthMethod: link.kind.flow, CreatedAt: pgtype.Timestamptz{Time: link.created, Valid: true}})
	if err == nil && link.kind.flow == amrRecovery && !s.recoveryFlowFromHere(r, fs.CodeChallenge) {
		// Requested from another browser (flowbinding.go): the flow goes with the token.
		if _, err := s.d.Owner.Exec(ctx, "delete from auth.flow_state where id = $1", fs.ID); err != nil {
			return err
		}
		frag := url.Values{"error": {"access_denied"}, "error_code": {"flow_state_not_found"},
			"error_description": {"This password reset was requested from another browser: request a new one here"}}
		http.Redirect(w, r, redirect+"#"+frag.Encode(), http.StatusSeeOther)
		return nil
	}
	if err == nil {
		if err := s.q.FlowStateIssue(ctx, fs.ID); err != nil {
			return err
		}
		sep := "?"
		if strings.Contains(redirect, "?") {
			sep = "&"
		}
		http.Redirect(w, r, redirect+sep+"code="+url.QueryEscape(fs.AuthCode), http.StatusSeeOther)
		return nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	out, err := s.issueSession(ctx, r, u, amrOTP)
	if err != nil {
		return err
	}
	frag := url.Values{
		"access_token": {out.AccessToken}, "refresh_token": {out.RefreshToken},
		"expires_in": {strconv.Itoa(out.ExpiresIn)}, "expires_at": {strconv.FormatInt(out.ExpiresAt, 10)},
		"token_type": {out.TokenType}, "type": {typ},
	}
	http.Redirect(w, r, redirect+"#"+frag.Encode(), http.StatusSeeOther)
	return nil
}

// verifyParams is the body of POST /verify (supabase-js verifyOtp).
type verifyParams struct {
	Type      string `json:"type"`
	Token     string `json:"token"`
	TokenHash string `json:"token_hash"`
	Email     string `json:"email"`
	Phone     string `json:"phone"`
}

// token is the token the client gave: the hash of a link, else the code of a mail.
func (p *verifyParams) token() string {
	if p.TokenHash != "" {
		return p.TokenHash
	}
	return p.Token
}

// verifyPost redeems a token and answers the session (or, for the first of the two
// e-mail change links, GoTrue's message).
func (s *Server) verifyPost(w http.ResponseWriter, r *http.Request) error {
	var p verifyParams
	if err := decode(r, &p); err != nil {
		return err
	}
	if p.Token != "" && p.Phone != "" {
		if p.Email != "" {
			return errf(400, "validation_failed", "Only an email address or phone number should be provided on verify")
		}
		return verifyPhone(p.Phone) // verifyOtp({phone, token}): no user has a phone here
	}
	link, err := s.consume(r.Context(), p.token(), p.Type)
	if err != nil {
		return err
	}
	if link.pending {
		httpx.WriteJSON(w, 200, map[string]any{"msg": singleConfirmationAccepted, "code": 200})
		return nil
	}
	out, err := s.issueSession(r.Context(), r, link.user, amrOTP)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, 200, out)
	return nil
}
