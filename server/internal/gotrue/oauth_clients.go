package gotrue

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"casus/server/internal/httpx"
)

// The OAuth 2.1 server's admin API (supabase-js auth.admin.oauth), as GoTrue's
// /admin/oauth/clients: register, read, list, update, delete clients and regenerate a
// confidential client's secret, in GoTrue's auth.oauth_clients (migration 012). The
// secret is shown once, on registration or regeneration; only its SHA-256 is stored.
// Casus does not run the authorization server itself (/oauth/authorize, /oauth/token).

var (
	errOAuthClientNotFound = errf(404, "oauth_client_not_found", "OAuth client not found")
	errOAuthClientID       = errf(400, "validation_failed", "invalid client_id format")
	errOAuthBadJSON        = errf(400, "bad_json", "Invalid JSON body")
)

var oauthAuthMethods = []string{"none", "client_secret_basic", "client_secret_post"}

func (s *Server) oauthClientRoutes(mux *http.ServeMux, h func(httpx.HandlerFunc) http.Handler) {
	mux.Handle("POST /auth/v1/admin/oauth/clients", h(s.admin(s.oauthClientCreate)))
	mux.Handle("GET /auth/v1/admin/oauth/clients", h(s.admin(s.oauthClientList)))
	mux.Handle("GET /auth/v1/admin/oauth/clients/{id}", h(s.admin(s.oauthClientGet)))
	mux.Handle("PUT /auth/v1/admin/oauth/clients/{id}", h(s.admin(s.oauthClientUpdate)))
	mux.Handle("DELETE /auth/v1/admin/oauth/clients/{id}", h(s.admin(s.oauthClientDelete)))
	mux.Handle("POST /auth/v1/admin/oauth/clients/{id}/regenerate_secret", h(s.admin(s.oauthClientRegenerate)))
}

// oauthClient is a row of auth.oauth_clients and GoTrue's client JSON.
type oauthClient struct {
	ID           pgtype.UUID `json:"-"`
	ClientID     string      `json:"client_id"`
	ClientSecret string      `json:"client_secret,omitempty"` // only when just made
	ClientType   string      `json:"client_type"`
	RedirectURIs []string    `json:"redirect_uris,omitempty"`
	AuthMethod   string      `json:"token_endpoint_auth_method,omitempty"`
	GrantTypes   []string    `json:"grant_types,omitempty"`
	Response     []string    `json:"response_types,omitempty"`
	ClientName   string      `json:"client_name,omitempty"`
	ClientURI    string      `json:"client_uri,omitempty"`
	LogoURI      string      `json:"logo_uri,omitempty"`
	Registration string      `json:"registration_type,omitempty"`
	CreatedAt    time.Time   `json:"created_at"`
	UpdatedAt    time.Time   `json:"updated_at"`
}

const oauthClientColumns = `id, client_type::text, redirect_uris, token_endpoint_auth_method, grant_types,
	coalesce(client_name, ''), coalesce(client_uri, ''), coalesce(logo_uri, ''), registration_type::text, created_at, updated_at`

func scanOAuthClient(row pgx.Row) (oauthClient, error) {
	var c oauthClient
	var redirects, grants string
	err := row.Scan(&c.ID, &c.ClientType, &redirects, &c.AuthMethod, &grants, &c.ClientName, &c.ClientURI, &c.LogoURI,
		&c.Registration, &c.CreatedAt, &c.UpdatedAt)
	c.ClientID = uuidString(c.ID)
	c.RedirectURIs = splitList(redirects)
	c.GrantTypes = splitList(grants)
	c.Response = []string{"code"} // always "code" in OAuth 2.1
	return c, err
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// validRedirectURI is GoTrue's rule for a client's redirect URI: absolute with a host, no
// script-like scheme, plain http only to a loopback host, no fragment.
func validRedirectURI(raw string) error {
	if raw == "" {
		return errors.New("redirect URI cannot be empty")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return errors.New("invalid URL format")
	}
	if u.Scheme == "" || u.Host == "" {
		return errors.New("must have scheme and host")
	}
	for _, bad := range []string{"javascript", "data", "file", "vbscript", "about", "blob"} {
		if strings.EqualFold(u.Scheme, bad) {
			return fmt.Errorf("scheme '%s' is not allowed for security reasons", u.Scheme)
		}
	}
	if h := u.Hostname(); u.Scheme == "http" && h != "localhost" && h != "127.0.0.1" && h != "::1" {
		return errors.New("HTTP scheme only allowed for localhost")
	}
	if u.Fragment != "" {
		return errors.New("fragment not allowed in redirect URI")
	}
	return nil
}

func validationFailed(format string, args ...any) *Error {
	return errf(400, "validation_failed", format, args...)
}

func checkRedirectURIs(uris []string, required bool) *Error {
	switch {
	case required && len(uris) == 0:
		return validationFailed("redirect_uris is required")
	case len(uris) == 0:
		return validationFailed("redirect_uris cannot be empty")
	case len(uris) > 10:
		return validationFailed("redirect_uris cannot exceed 10 items")
	}
	for _, u := range uris {
		if err := validRedirectURI(u); err != nil {
			return validationFailed("invalid redirect_uri '%s': %v", u, err)
		}
	}
	return nil
}

func checkGrantTypes(g []string) *Error {
	if len(g) == 0 {
		return validationFailed("grant_types cannot be empty")
	}
	for _, t := range g {
		if t != "authorization_code" && t != "refresh_token" {
			return validationFailed("grant_types must only contain 'authorization_code' and/or 'refresh_token'")
		}
	}
	return nil
}

func checkClientURIs(name, clientURI, logoURI *string) *Error {
	if name != nil && len(*name) > 1024 {
		return validationFailed("client_name cannot exceed 1024 characters")
	}
	for _, f := range []struct {
		field string
		v     *string
	}{{"client_uri", clientURI}, {"logo_uri", logoURI}} {
		if f.v == nil || *f.v == "" {
			continue
		}
		if len(*f.v) > 2048 {
			return validationFailed("%s cannot exceed 2048 characters", f.field)
		}
		if _, err := url.ParseRequestURI(*f.v); err != nil {
			return validationFailed("%s must be a valid URL", f.field)
		}
	}
	return nil
}

// clientTypeOf is the client type an auth method implies (none: public).
func clientTypeOf(method string) string {
	if method == "none" {
		return "public"
	}
	return "confidential"
}

type oauthClientParams struct {
	RedirectURIs []string `json:"redirect_uris"`
	ClientType   string   `json:"client_type"`
	AuthMethod   string   `json:"token_endpoint_auth_method"`
	GrantTypes   []string `json:"grant_types"`
	ClientName   string   `json:"client_name"`
	ClientURI    string   `json:"client_uri"`
	LogoURI      string   `json:"logo_uri"`
}

func (p *oauthClientParams) validate() *Error {
	if err := checkRedirectURIs(p.RedirectURIs, true); err != nil {
		return err
	}
	if len(p.GrantTypes) > 0 {
		if err := checkGrantTypes(p.GrantTypes); err != nil {
			return err
		}
	}
	if err := checkClientURIs(&p.ClientName, &p.ClientURI, &p.LogoURI); err != nil {
		return err
	}
	if p.ClientType != "" && p.ClientType != "public" && p.ClientType != "confidential" {
		return validationFailed("client_type must be 'public' or 'confidential'")
	}
	if p.AuthMethod != "" && !slices.Contains(oauthAuthMethods, p.AuthMethod) {
		return validationFailed("token_endpoint_auth_method must be one of: [%s]", strings.Join(oauthAuthMethods, " "))
	}
	if p.ClientType != "" && p.AuthMethod != "" && clientTypeOf(p.AuthMethod) != p.ClientType {
		return validationFailed("client_type '%s' is inconsistent with token_endpoint_auth_method '%s' (expected client_type '%s')",
			p.ClientType, p.AuthMethod, clientTypeOf(p.AuthMethod))
	}
	return nil
}

// newClientSecret is a random secret and the hash stored for it.
func newClientSecret() (string, string) {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	secret := base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(secret))
	return secret, base64.RawURLEncoding.EncodeToString(sum[:])
}

func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (s *Server) oauthClientCreate(w http.ResponseWriter, r *http.Request) error {
	var p oauthClientParams
	if err := decode(r, &p); err != nil {
		var e *Error
		if errors.As(err, &e) && e.Code == "bad_json" {
			return errOAuthBadJSON
		}
		return err
	}
	if err := p.validate(); err != nil {
		// GoTrue wraps the check's error text, status included, in a new 400.
		return validationFailed("%d: %s", err.Status, err.Msg)
	}
	grants := p.GrantTypes
	if len(grants) == 0 {
		grants = []string{"authorization_code", "refresh_token"}
	}
	ctype := p.ClientType
	if ctype == "" {
		ctype = "confidential"
		if p.AuthMethod != "" {
			ctype = clientTypeOf(p.AuthMethod)
		}
	}
	method := p.AuthMethod
	if method == "" {
		method = map[string]string{"public": "none", "confidential": "client_secret_basic"}[ctype]
	}
	var secret string
	var hash *string
	if ctype == "confidential" {
		var h string
		secret, h = newClientSecret()
		hash = &h
	}
	c, err := scanOAuthClient(s.d.Owner.QueryRow(r.Context(), `insert into auth.oauth_clients (id, client_secret_hash,
		registration_type, redirect_uris, grant_types, client_name, client_uri, logo_uri, client_type, token_endpoint_auth_method)
		values (gen_random_uuid(), $1, 'manual', $2, $3, $4, $5, $6, $7::auth.oauth_client_type, $8) returning `+oauthClientColumns,
		hash, strings.Join(p.RedirectURIs, ","), strings.Join(grants, ","), nullIfEmpty(p.ClientName), nullIfEmpty(p.ClientURI),
		nullIfEmpty(p.LogoURI), ctype, method))
	if err != nil {
		return err
	}
	c.ClientSecret = secret
	httpx.WriteJSON(w, http.StatusCreated, c)
	return nil
}

// pathClient loads the live client named by the path.
func (s *Server) pathClient(r *http.Request) (oauthClient, error) {
	id, err := parseUUID(r.PathValue("id"))
	if err != nil {
		return oauthClient{}, errOAuthClientID
	}
	c, err := scanOAuthClient(s.d.Owner.QueryRow(r.Context(), "select "+oauthClientColumns+
		" from auth.oauth_clients where id = $1 and deleted_at is null", id))
	if errors.Is(err, pgx.ErrNoRows) {
		return c, errOAuthClientNotFound
	}
	return c, err
}

func (s *Server) oauthClientGet(w http.ResponseWriter, r *http.Request) error {
	c, err := s.pathClient(r)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, 200, c)
	return nil
}

// oauthClientList lists live clients, newest first, with the admin users list's
// pagination (page, per_page, X-Total-Count and Link).
func (s *Server) oauthClientList(w http.ResponseWriter, r *http.Request) error {
	page, perPage, err := pagination(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	var total int64
	if err := s.d.Owner.QueryRow(ctx, "select count(*) from auth.oauth_clients where deleted_at is null").Scan(&total); err != nil {
		return err
	}
	rows, err := s.d.Owner.Query(ctx, "select "+oauthClientColumns+` from auth.oauth_clients where deleted_at is null
		order by created_at desc, id limit $1 offset $2`, perPage, (page-1)*perPage)
	if err != nil {
		return err
	}
	clients, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (oauthClient, error) { return scanOAuthClient(row) })
	if err != nil {
		return err
	}
	paginationHeaders(w, r, page, perPage, total)
	httpx.WriteJSON(w, 200, map[string]any{"clients": clients})
	return nil
}

type oauthClientUpdate struct {
	RedirectURIs *[]string `json:"redirect_uris"`
	GrantTypes   *[]string `json:"grant_types"`
	ClientName   *string   `json:"client_name"`
	ClientURI    *string   `json:"client_uri"`
	LogoURI      *string   `json:"logo_uri"`
	AuthMethod   *string   `json:"token_endpoint_auth_method"`
}

func (s *Server) oauthClientUpdate(w http.ResponseWriter, r *http.Request) error {
	c, err := s.pathClient(r)
	if err != nil {
		return err
	}
	var p oauthClientUpdate
	if err := decode(r, &p); err != nil {
		var e *Error
		if errors.As(err, &e) && e.Code == "bad_json" {
			return errOAuthBadJSON
		}
		return err
	}
	if p == (oauthClientUpdate{}) {
		return validationFailed("No fields provided for update")
	}
	if p.RedirectURIs != nil {
		if err := checkRedirectURIs(*p.RedirectURIs, false); err != nil {
			return err
		}
		c.RedirectURIs = *p.RedirectURIs
	}
	if p.GrantTypes != nil {
		if err := checkGrantTypes(*p.GrantTypes); err != nil {
			return err
		}
		c.GrantTypes = *p.GrantTypes
	}
	if err := checkClientURIs(p.ClientName, p.ClientURI, p.LogoURI); err != nil {
		return err
	}
	if p.AuthMethod != nil {
		if !slices.Contains(oauthAuthMethods, *p.AuthMethod) {
			return validationFailed("invalid token_endpoint_auth_method: must be one of [%s]", strings.Join(oauthAuthMethods, " "))
		}
		if clientTypeOf(*p.AuthMethod) != c.ClientType {
			valid := "[none]"
			if c.ClientType == "confidential" {
				valid = "[client_secret_basic client_secret_post]"
			}
			return validationFailed("token_endpoint_auth_method '%s' is not valid for client_type '%s'; valid methods: %s", *p.AuthMethod, c.ClientType, valid)
		}
		c.AuthMethod = *p.AuthMethod
	}
	for _, f := range []struct{ dst, src *string }{{&c.ClientName, p.ClientName}, {&c.ClientURI, p.ClientURI}, {&c.LogoURI, p.LogoURI}} {
		if f.src != nil {
			*f.dst = *f.src
		}
	}
	c, err = scanOAuthClient(s.d.Owner.QueryRow(r.Context(), `update auth.oauth_clients set redirect_uris = $2, grant_types = $3,
		client_name = $4, client_uri = $5, logo_uri = $6, token_endpoint_auth_method = $7, updated_at = now()
		where id = $1 and deleted_at is null returning `+oauthClientColumns,
		c.ID, strings.Join(c.RedirectURIs, ","), strings.Join(c.GrantTypes, ","), nullIfEmpty(c.ClientName),
		nullIfEmpty(c.ClientURI), nullIfEmpty(c.LogoURI), c.AuthMethod))
	if errors.Is(err, pgx.ErrNoRows) {
		return errOAuthClientNotFound
	}
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, 200, c)
	return nil
}

// oauthClientDelete soft-deletes the client (deleted_at), as GoTrue; 204.
func (s *Server) oauthClientDelete(w http.ResponseWriter, r *http.Request) error {
	c, err := s.pathClient(r)
	if err != nil {
		return err
	}
	if _, err := s.d.Owner.Exec(r.Context(), "update auth.oauth_clients set deleted_at = now(), updated_at = now() where id = $1", c.ID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) oauthClientRegenerate(w http.ResponseWriter, r *http.Request) error {
	c, err := s.pathClient(r)
	if err != nil {
		return err
	}
	if c.ClientType != "confidential" {
		return validationFailed("Cannot regenerate secret for public client")
	}
	secret, hash := newClientSecret()
	c, err = scanOAuthClient(s.d.Owner.QueryRow(r.Context(), `update auth.oauth_clients set client_secret_hash = $2, updated_at = now()
		where id = $1 and deleted_at is null returning `+oauthClientColumns, c.ID, hash))
	if err != nil {
		return err
	}
	c.ClientSecret = secret
	httpx.WriteJSON(w, 200, c)
	return nil
}

// pagination reads page and per_page as the admin lists take them.
func pagination(r *http.Request) (int, int, error) {
	page, err := pageParam(r, "page", 1)
	if err != nil {
		return 0, 0, err
	}
	perPage, err := pageParam(r, "per_page", 50)
	if err != nil {
		return 0, 0, err
	}
	perPage = min(perPage, 1000)
	if page > math.MaxInt32/perPage {
		return 0, 0, validationFailed("Bad Pagination Parameters: page is too large")
	}
	return page, perPage, nil
}

// paginationHeaders writes GoTrue's Link (next, last) and X-Total-Count.
func paginationHeaders(w http.ResponseWriter, r *http.Request, page, perPage int, total int64) {
	pages := int((total + int64(perPage) - 1) / int64(perPage))
	u := *r.URL
	q := u.Query()
	link := ""
	if pages > page {
		q.Set("page", strconv.Itoa(page+1))
		u.RawQuery = q.Encode()
		link += "<" + u.String() + ">; rel=\"next\", "
	}
	q.Set("page", strconv.Itoa(pages))
	u.RawQuery = q.Encode()
	link += "<" + u.String() + ">; rel=\"last\""
	w.Header().Set("Link", link)
	w.Header().Set("X-Total-Count", strconv.FormatInt(total, 10))
}
