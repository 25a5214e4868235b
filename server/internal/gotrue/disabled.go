package gotrue

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"casus/server/internal/httpx"
)

// Features Casus does not offer (OAuth and OIDC providers, SAML SSO, Web3, phone sign-in)
// are answered as a GoTrue with them disabled answers, so supabase-js shows GoTrue's own
// messages: signInWithOAuth, linkIdentity, signInWithIdToken, signInWithSSO,
// signInWithWeb3, and the phone variants of signInWithOtp, signInWithPassword, verifyOtp
// and resend.

var (
	errSAMLDisabled    = errf(404, "saml_provider_disabled", "SAML 2.0 is disabled")
	errManualLinking   = errf(404, "manual_linking_disabled", "Manual linking is disabled")
	errWeb3Disabled    = errf(422, "web3_provider_disabled", "Web3 provider is disabled")
	errPhoneOTP        = errf(400, "phone_provider_disabled", "Unsupported phone provider")
	errPhoneLogin      = errf(422, "phone_provider_disabled", "Phone logins are disabled")
	errPhoneResend     = errf(400, "phone_provider_disabled", "Phone logins are disabled")
	errPhoneFormat     = errf(400, "validation_failed", "Invalid phone number format (E.164 required)")
	errTokenInvalid    = errf(403, "otp_expired", "Token has expired or is invalid")
	errEmailOrPhoneOTP = errf(400, "validation_failed", "Only an email address or phone number should be provided")
)

// oauthProviders are GoTrue's built-in OAuth providers: each is known, and disabled here.
var oauthProviders = []string{"apple", "azure", "bitbucket", "discord", "facebook", "figma", "fly", "github", "gitlab",
	"google", "kakao", "keycloak", "linkedin", "linkedin_oidc", "notion", "slack", "slack_oidc", "snapchat", "spotify",
	"twitch", "twitter", "vercel_marketplace", "workos", "x", "zoom"}

// idTokenIssuers are the issuers GoTrue checks an id_token provider against (apple and
// azure take theirs from the token).
var idTokenIssuers = map[string]string{
	"google": "https://accounts.google.com", "facebook": "https://www.facebook.com", "kakao": "https://kauth.kakao.com",
	"vercel_marketplace": "https://marketplace.vercel.com", "snapchat": "https://accounts.snapchat.com/accounts/oauth2/token",
	"keycloak": "",
}

// e164 is GoTrue's phone number format (after "+" and spaces are removed).
var e164 = regexp.MustCompile(`^[1-9][0-9]{1,14}$`)

func validPhone(p string) bool {
	return e164.MatchString(strings.ReplaceAll(strings.TrimPrefix(p, "+"), " ", ""))
}

// oauthError is GoTrue's OAuthError body, {error, error_description}, sent with a 400.
type oauthError struct{ Err, Description string }

func (e *oauthError) Error() string { return e.Err + ": " + e.Description }

// Render implements httpx.Renderer.
func (e *oauthError) Render(w http.ResponseWriter, _ *http.Request) {
	httpx.WriteJSON(w, http.StatusBadRequest, map[string]string{"error": e.Err, "error_description": e.Description})
}

func (s *Server) disabledRoutes(mux *http.ServeMux, h func(httpx.HandlerFunc) http.Handler) {
	// A browser opens /authorize with no apikey, as a mailed link's /verify.
	mux.Handle("GET /auth/v1/authorize", httpx.Handle(s.d.Log, s.authorize))
	mux.Handle("GET /auth/v1/user/identities/authorize", h(s.linkIdentity))
	saml := h(func(http.ResponseWriter, *http.Request) error { return errSAMLDisabled })
	mux.Handle("POST /auth/v1/sso", saml)
	mux.Handle("GET /auth/v1/sso/saml/metadata", saml)
	mux.Handle("POST /auth/v1/sso/saml/acs", saml)
}

// providerError is GoTrue's answer for an OAuth provider that is not configured.
func providerError(name string) error {
	if slices.Contains(oauthProviders, strings.ToLower(name)) {
		return errf(400, "validation_failed", "Unsupported provider: provider is not enabled")
	}
	return errf(400, "validation_failed", "Unsupported provider: Provider %s could not be found", name)
}

// authorize is signInWithOAuth's redirect: no provider is enabled.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) error {
	return providerError(r.URL.Query().Get("provider"))
}

// linkIdentity is GET /user/identities/authorize (supabase-js linkIdentity): off unless
// MANUAL_LINKING_ENABLED, and then refused since no provider is enabled.
func (s *Server) linkIdentity(w http.ResponseWriter, r *http.Request) error {
	if _, _, err := s.currentUser(r); err != nil {
		return err
	}
	if !s.d.Config.ManualLinkingEnabled {
		return errManualLinking
	}
	return providerError(r.URL.Query().Get("provider"))
}

// tokenWeb3 is POST /token?grant_type=web3.
func (s *Server) tokenWeb3(w http.ResponseWriter, r *http.Request) error { return errWeb3Disabled }

// tokenIDToken is POST /token?grant_type=id_token: GoTrue's checks of the body, then the
// provider's, which is never enabled here.
func (s *Server) tokenIDToken(w http.ResponseWriter, r *http.Request) error {
	var p struct {
		IDToken  string `json:"id_token"`
		Provider string `json:"provider"`
		ClientID string `json:"client_id"`
		Issuer   string `json:"issuer"`
	}
	if err := decode(r, &p); err != nil {
		return err
	}
	switch {
	case p.IDToken == "":
		return &oauthError{"invalid request", "id_token required"}
	case p.Provider == "" && (p.ClientID == "" || p.Issuer == ""):
		return &oauthError{"invalid request", "provider or client_id and issuer required"}
	}
	issuer, known := idTokenIssuers[p.Provider]
	switch p.Provider {
	case "apple", "azure":
		iss, ok := tokenIssuer(p.IDToken)
		if !ok {
			name := map[string]string{"apple": "Apple", "azure": "Azure"}[p.Provider]
			return errf(400, "validation_failed", "Unable to detect issuer in ID token for %s provider", name)
		}
		issuer, known = iss, true
	}
	if !known {
		return errf(400, "validation_failed", "Custom OIDC provider %q not allowed", p.Provider)
	}
	return errf(400, "provider_disabled", "Provider (issuer %q) is not enabled", issuer)
}

// tokenIssuer reads the (unverified) iss claim of a JWT, as GoTrue does to pick a provider.
func tokenIssuer(tok string) (string, bool) {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return "", false
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	var claims struct {
		Iss string `json:"iss"`
	}
	if err != nil || json.Unmarshal(raw, &claims) != nil {
		return "", false
	}
	return claims.Iss, true
}

// verifyPhone is verifyOtp({phone, token}): the number is checked as GoTrue checks it,
// and no user has a phone number to match.
func verifyPhone(phone string) error {
	if !validPhone(phone) {
		return errPhoneFormat
	}
	return errTokenInvalid
}
