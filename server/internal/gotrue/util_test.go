package gotrue_test

import (
	"crypto/sha256"
	"encoding/base64"
)

func s256(v string) string {
	sum := sha256.Sum256([]byte(v))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
