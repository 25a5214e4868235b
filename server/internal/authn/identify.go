package authn

import (
	"net/http"
	"sync"
	"time"
)

// Identity is what a request's apikey and bearer token prove. Each protocol decides what
// it requires of it and answers in its own shape: the data API and realtime's REST
// broadcast need a valid apikey and refuse a bad bearer token (Err), auth needs an anon
// or service-role apikey and reads the bearer only on user and admin endpoints, the AI
// gateway needs a user's bearer token, realtime's socket the apikey alone.
type Identity struct {
	// KeyRole is the role of the apikey when it verified.
	KeyRole string
	// KeyErr is ErrNoAPIKey or ErrInvalidKey when the apikey is missing or does not verify.
	KeyErr error
	// Bearer is true when the request carries an Authorization: Bearer token.
	Bearer bool
	// BearerErr is ErrInvalidToken or ErrExpiredToken when that token does not verify.
	BearerErr error
	// Claims are the bearer token's when it verified, else the apikey's, else nil. They
	// are shared by every request with the same tokens: read, never modify.
	Claims *Claims
	// HasUserToken is true when the verified bearer token names a user (sub).
	HasUserToken bool
}

// Err is the first failure of the apikey and bearer token, as the data API reports it.
func (id *Identity) Err() error {
	if id.KeyErr != nil {
		return id.KeyErr
	}
	return id.BearerErr
}

// Identify verifies the request's apikey (header, else query parameter) and bearer token.
// Identities are remembered by the exact apikey and bearer strings, as PostgREST's JWT
// cache does: a client sends the same tokens with every request, and verifying them
// (HMAC plus two JSON decodes per token) was a tenth of the data API's CPU per request.
// Only identities whose tokens all verified are kept, each until the earlier expiry of
// its tokens, so a hit answers exactly what verifying again would.
func (k *Keys) Identify(r *http.Request) *Identity {
	key, bearer := APIKey(r), BearerToken(r)
	ck := key + "\x00" + bearer
	now := time.Now()
	if id, ok := k.ids.get(ck, now); ok {
		return id
	}
	id := &Identity{Bearer: bearer != ""}
	var exp time.Time
	var keyClaims *Claims
	if key == "" {
		id.KeyErr = ErrNoAPIKey
	} else if c, err := k.Verify(key); err != nil {
		id.KeyErr = ErrInvalidKey
		if bearer == key {
			id.BearerErr = err
		}
	} else {
		keyClaims = c.slim()
		id.KeyRole, id.Claims, exp = c.Role, keyClaims, c.ExpiresAt.Time
	}
	if bearer != "" && bearer != key {
		c, err := k.Verify(bearer)
		if err != nil {
			id.BearerErr = err
			return id
		}
		id.Claims, id.HasUserToken = c.slim(), c.Subject != ""
		if exp.IsZero() || c.ExpiresAt.Time.Before(exp) {
			exp = c.ExpiresAt.Time
		}
	}
	if id.KeyErr == ErrInvalidKey || exp.IsZero() {
		return id
	}
	size := len(ck) + entryOverhead
	if id.Claims != nil {
		size += len(id.Claims.RawJSON)
	}
	if keyClaims != nil && keyClaims != id.Claims {
		size += len(keyClaims.RawJSON)
	}
	k.ids.put(ck, cachedIdentity{id: id, expires: exp, size: size}, now)
	return id
}

// slim keeps what a request uses: the typed claims and the claims JSON
// (request.jwt.claims); the decoded payload and metadata are dropped.
func (c *Claims) slim() *Claims {
	s := *c
	s.Raw, s.AppMetadata, s.UserMetadata = nil, nil, nil
	return &s
}

// identityCache holds verified identities, bounded by bytes as well as entries, so large
// tokens cannot grow it without limit.
type identityCache struct {
	mu    sync.Mutex
	m     map[string]cachedIdentity
	bytes int
}

type cachedIdentity struct {
	id      *Identity
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

func (c *identityCache) get(ck string, now time.Time) (*Identity, bool) {
	c.mu.Lock()
	hit, ok := c.m[ck]
	c.mu.Unlock()
	return hit.id, ok && now.Before(hit.expires)
}

// put stores an entry, first dropping expired entries and then arbitrary ones (Go's map
// order) until it fits within both bounds.
func (c *identityCache) put(ck string, e cachedIdentity, now time.Time) {
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

// CachedBytes is the approximate memory the cached identities hold.
func (k *Keys) CachedBytes() int {
	k.ids.mu.Lock()
	defer k.ids.mu.Unlock()
	return k.ids.bytes
}
