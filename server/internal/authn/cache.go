package authn

import (
	"net/http"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// IdentityCache remembers verified identities by the exact apikey and bearer strings, as
// PostgREST's JWT cache does: a client sends the same tokens with every request, and
// verifying them (HMAC plus two JSON decodes per token) was a tenth of the data API's CPU
// per request. Only successes are cached, each until the earlier expiry of its tokens,
// so a hit answers exactly what verifying again would. An entry keeps only what a
// request needs (role, subject, the claims JSON for request.jwt.claims), not the decoded
// metadata, and the cache is bounded by bytes as well as entries, so large tokens cannot
// grow it without limit.
type IdentityCache struct {
	mu    sync.Mutex
	m     map[string]cachedIdentity
	bytes int
}

type cachedIdentity struct {
	id      *Request
	expires time.Time
	size    int
}

const (
	maxCachedIdentities = 4096
	// maxCacheBytes bounds the tokens and claims JSON the cache holds.
	maxCacheBytes = 8 << 20
	// entryOverhead approximates an entry's structs and map slot beyond its strings.
	entryOverhead = 512
)

// FromRequest is Keys.FromRequest through the cache.
func (c *IdentityCache) FromRequest(keys *Keys, r *http.Request) (*Request, error) {
	key := r.Header.Get("apikey")
	if key == "" {
		key = r.URL.Query().Get("apikey")
	}
	bearer := BearerToken(r)
	ck := key + "\x00" + bearer
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
	id = id.slim()
	// The identity is good until the earlier expiry of the two tokens (both verified by
	// now; the apikey's payload is decoded once more only to read its exp).
	exp, ok := expiry(id)
	if !ok {
		return id, nil
	}
	if bearer != "" && bearer != key {
		var kc jwt.RegisteredClaims
		if _, _, err := jwt.NewParser().ParseUnverified(key, &kc); err != nil || kc.ExpiresAt == nil {
			return id, nil
		}
		if kc.ExpiresAt.Time.Before(exp) {
			exp = kc.ExpiresAt.Time
		}
	}
	c.put(ck, cachedIdentity{id: id, expires: exp, size: len(ck) + len(id.Claims.RawJSON) + entryOverhead}, now)
	return id, nil
}

// put stores an entry, first dropping expired entries and then arbitrary ones (Go's map
// order) until it fits within both bounds.
func (c *IdentityCache) put(ck string, e cachedIdentity, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]cachedIdentity{}
	}
	if old, ok := c.m[ck]; ok {
		c.bytes -= old.size
		delete(c.m, ck)
	}
	if c.bytes+e.size > maxCacheBytes || len(c.m) >= maxCachedIdentities {
		for k, v := range c.m {
			if !now.Before(v.expires) {
				c.bytes -= v.size
				delete(c.m, k)
			}
		}
		for k, v := range c.m {
			if c.bytes+e.size <= maxCacheBytes && len(c.m) < maxCachedIdentities {
				break
			}
			c.bytes -= v.size
			delete(c.m, k)
		}
	}
	if e.size > maxCacheBytes {
		return
	}
	c.m[ck] = e
	c.bytes += e.size
}

// Bytes is the approximate memory the cached entries hold.
func (c *IdentityCache) Bytes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// slim keeps what a data request uses: the role, the registered claims and the claims
// JSON (request.jwt.claims); the decoded payload and metadata are dropped.
func (r *Request) slim() *Request {
	if r == nil || r.Claims == nil {
		return r
	}
	c := *r.Claims
	c.Raw, c.AppMetadata, c.UserMetadata = nil, nil, nil
	return &Request{APIKeyRole: r.APIKeyRole, Claims: &c, HasUserToken: r.HasUserToken}
}

// expiry is when the identity's token stops verifying (without the parser's leeway).
func expiry(id *Request) (time.Time, bool) {
	if id == nil || id.Claims == nil || id.Claims.ExpiresAt == nil {
		return time.Time{}, false
	}
	return id.Claims.ExpiresAt.Time, true
}
