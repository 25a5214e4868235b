package gotrue

import (
	"fmt"
	"net/http"

	"casus/server/internal/httpx"
)

// Error is a GoTrue-shaped error: {"code": <status>, "error_code": "...", "msg": "..."}.
// Messages are GoTrue's own, since the app shows them as they are.
type Error struct {
	Status int
	Code   string
	Msg    string
	Extra  map[string]any
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Msg) }

// Render implements httpx.Renderer.
func (e *Error) Render(w http.ResponseWriter, _ *http.Request) {
	body := map[string]any{"code": e.Status, "error_code": e.Code, "msg": e.Msg}
	for k, v := range e.Extra {
		body[k] = v
	}
	if e.Status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "60")
	}
	httpx.WriteJSON(w, e.Status, body)
}

func errf(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Msg: fmt.Sprintf(format, args...)}
}

var (
	errInvalidCredentials = errf(400, "invalid_credentials", "Invalid login credentials")
	errEmailNotConfirmed  = errf(400, "email_not_confirmed", "Email not confirmed")
	errEmailExists        = errf(422, "email_exists", "A user with this email address has already been registered")
	errUserExists         = errf(422, "user_already_exists", "User already registered")
	errWeakPassword       = &Error{Status: 422, Code: "weak_password", Msg: "Password should be at least 6 characters.", Extra: map[string]any{"weak_password": map[string]any{"reasons": []string{"length"}}}}
	errInvalidEmail       = errf(400, "validation_failed", "Unable to validate email address: invalid format")
	errNoAuth             = errf(401, "no_authorization", "This endpoint requires a Bearer token")
	errBadJWT             = errf(403, "bad_jwt", "invalid JWT: unable to parse or verify signature")
	errExpiredJWT         = errf(403, "bad_jwt", "invalid JWT: unable to parse or verify signature, token has invalid claims: token is expired")
	errSessionNotFound    = errf(403, "session_not_found", "Session from session_id claim in JWT does not exist")
	errUserNotFound       = errf(404, "user_not_found", "User not found")
	errJWTUserNotFound    = errf(403, "user_not_found", "User from sub claim in JWT does not exist")
	errRefreshNotFound    = errf(400, "refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found")
	errRefreshUsed        = errf(400, "refresh_token_already_used", "Invalid Refresh Token: Already Used")
	errOTPExpired         = errf(403, "otp_expired", "Email link is invalid or has expired")
	errNotAdmin           = errf(403, "not_admin", "User not allowed")
	errNoAPIKey           = errf(401, "no_api_key", "No API key found in request")
	errBadAPIKey          = errf(401, "invalid_api_key", "Invalid API key")
	errEmailChange        = errf(422, "email_change_not_supported", "Changing the e-mail address is not supported; contact an administrator")
	errAnonymousDisabled  = errf(422, "anonymous_provider_disabled", "Anonymous sign-ins are disabled")
	errPhoneDisabled      = errf(400, "phone_provider_disabled", "Phone signups are disabled")
	errPathNotFound       = errf(404, "not_found", "404 page not found")
	errOverRequest        = errf(429, "over_request_rate_limit", "Request rate limit reached")
	errOverEmail          = errf(429, "over_email_send_rate_limit", "Email rate limit exceeded")
	errFlowNotFound       = errf(404, "flow_state_not_found", "invalid flow state, no valid flow state found")
	errFlowExpired        = errf(422, "flow_state_expired", "invalid flow state, flow state has expired")
	errBadCodeVerifier    = errf(403, "bad_code_verifier", "code challenge does not match previously saved code verifier")
)
