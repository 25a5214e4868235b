package gotrue

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
)

// PKCE recovery bound to the requesting browser (issue 32). GoTrue lets anyone request a
// recovery mail for any address with their own code_challenge: the victim's click then
// puts in the victim's address bar a code that only the requester's verifier redeems,
// and a code leaked from there (history, a referrer, a log) is the account. GoTrue
// accepts that risk; this server closes it where it can: POST /recover with a challenge
// sets a cookie on the requesting browser (HMAC of the challenge, for the verify path
// only), and GET /verify issues the recovery code only to a browser presenting it.
// Followed elsewhere, the link spends the token and the flow and redirects with an error,
// so no code ever exists for a stranger's click. supabase-js needs nothing new: its
// resetPasswordForEmail is a same-origin fetch, which stores the cookie, and the mailed
// link is a top-level navigation, which sends it (SameSite=Lax). The cookie can only
// reach the verify endpoint when the app and the API share a host (SITE_URL and
// API_EXTERNAL_URL, the default); otherwise GoTrue's behaviour is kept.

const flowCookie = "casus-recovery-flow"

// bindsRecoveryFlows reports whether the requesting browser's cookie can reach /verify.
func (s *Server) bindsRecoveryFlows() bool {
	site, err1 := url.Parse(s.d.Config.SiteURL)
	api, err2 := url.Parse(s.d.Config.APIExternalURL)
	if s.d.Config.APIExternalURL == "" {
		api, err2 = site, err1
	}
	return err1 == nil && err2 == nil && site.Hostname() != "" && strings.EqualFold(site.Hostname(), api.Hostname())
}

func (s *Server) flowBinding(challenge string) string {
	mac := hmac.New(sha256.New, s.d.Config.JWTSecret)
	mac.Write([]byte("recovery-flow:" + challenge))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// bindRecoveryFlow marks the requesting browser as the one whose click gets the code.
func (s *Server) bindRecoveryFlow(w http.ResponseWriter, challenge string) {
	if challenge == "" || !s.bindsRecoveryFlows() {
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: flowCookie, Value: s.flowBinding(challenge), Path: "/auth/v1/verify",
		MaxAge: int(linkRecovery.ttl.Seconds()), HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: strings.HasPrefix(s.d.Config.APIExternalURL, "https://"),
	})
}

// recoveryFlowFromHere reports whether the browser following a PKCE recovery link is the
// one that asked for it.
func (s *Server) recoveryFlowFromHere(r *http.Request, challenge string) bool {
	if !s.bindsRecoveryFlows() {
		return true
	}
	c, err := r.Cookie(flowCookie)
	return err == nil && subtle.ConstantTimeCompare([]byte(c.Value), []byte(s.flowBinding(challenge))) == 1
}
