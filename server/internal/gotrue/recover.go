package gotrue

import (
	"net/http"

	"casus/server/internal/httpx"
)

// recover mails a reset link. The answer, and the work done before it, are the same
// whether or not the address exists: the link is stored and mailed afterwards.
func (s *Server) recover(w http.ResponseWriter, r *http.Request) error {
	p, redirect, err := s.emailRequest(r, "Password recovery requires an email")
	if err != nil {
		return err
	}
	s.bindRecoveryFlow(w, p.CodeChallenge) // flowbinding.go
	return s.mailLink(w, p, linkJob{kind: linkRecovery, redirect: redirect})
}

// mailLink answers a request for a mailed link ({} whatever the address) and queues the
// link; the per-address limit counts every request, known address or not.
func (s *Server) mailLink(w http.ResponseWriter, p emailParams, j linkJob) error {
	var err error
	if j.challenge, j.challengeMethod, err = pkceChallenge(p.CodeChallenge, p.CodeChallengeMethod); err != nil {
		return err
	}
	if !s.allowEmail(p.Email) {
		return errOverEmail
	}
	j.email = p.Email
	if err := s.enqueueLink(j); err != nil {
		return err
	}
	httpx.WriteJSON(w, 200, map[string]any{})
	return nil
}
