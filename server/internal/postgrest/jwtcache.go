package postgrest

import (
	"net/http"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"casus/server/internal/authn"
)

// identityCache remembers verified identities by the exact apikey and bearer strings, as
// PostgREST's JWT cache does: a client sends the same tokens with every request, and
// verifying them (HMAC plus two JSON decodes per token) was a tenth of the server's CPU
// per request. Only successes are cached, each until the earlier expiry of its tokens,
// so a hit answers exactly what verifying again would.
type identityCache struct {
	mu sync.Mutex
	m  map[string]cachedIdentity
}

type cachedIdentity struct {
	id      *authn.Request
	expires time.Time
}

// maxCachedIdentities bounds the cache; when full it starts over (tokens are re-verified).
const maxCachedIdentities = 4096

func (c *identityCache) fromRequest(keys *authn.Keys, r *http.Request) (*authn.Request, error) {
	key := r.Header.Get("apikey")
	if key == "" {
		key = r.URL.Query().Get("apikey")
	}
	ck := key + "\x00" + authn.BearerToken(r)
	now := time.Now()
	c.mu.Lock()
	hit, ok := c.m[ck]
	c.mu.Unlock()
	if ok && now.Before(hit.expires) {
		return hit.id, nil
	}
	id, err := keys.FromRequest(r)
	if err != nil {
		return id, err
	}
	// The identity is good until the earlier expiry of the two tokens (both verified by
	// now; the apikey's payload is decoded once more only to read its exp).
	exp, ok := expiry(id)
	if !ok {
		return id, nil
	}
	if bearer := authn.BearerToken(r); bearer != "" && bearer != key {
		var kc jwt.RegisteredClaims
		if _, _, err := jwt.NewParser().ParseUnverified(key, &kc); err != nil || kc.ExpiresAt == nil {
			return id, nil
		}
		if kc.ExpiresAt.Time.Before(exp) {
			exp = kc.ExpiresAt.Time
		}
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCachedIdentities {
		c.m = map[string]cachedIdentity{}
	}
	c.m[ck] = cachedIdentity{id: id, expires: exp}
	c.mu.Unlock()
	return id, nil
}

// expiry is when the identity's token stops verifying (without the parser's leeway).
func expiry(id *authn.Request) (time.Time, bool) {
	if id == nil || id.Claims == nil || id.Claims.ExpiresAt == nil {
		return time.Time{}, false
	}
	return id.Claims.ExpiresAt.Time, true
}
