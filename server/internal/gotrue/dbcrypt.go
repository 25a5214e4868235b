package gotrue

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// TOTP secrets at rest (issue 32), in GoTrue's database encryption format: with
// SECURITY_DB_ENCRYPTION_ENCRYPT on, the secret column holds
// {"key_id":…,"alg":"aes-gcm-hkdf","nonce":…,"data":…}: AES-256-GCM under a key derived
// with HKDF-SHA256 from the named key, with the factor's id as info (a secret copied to
// another row does not open). A column that is not such an object is a plain secret (from
// before encryption was turned on). Rotation: set a new key id and key, keep the old one
// in SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS; each secret moves to the new key the next
// time its factor is verified.

type sealedSecret struct {
	KeyID     string `json:"key_id"`
	Algorithm string `json:"alg"`
	Nonce     []byte `json:"nonce"`
	Data      []byte `json:"data"`
}

const sealAlgorithm = "aes-gcm-hkdf"

func (s *Server) secretCipher(keyID, rowID string) (cipher.AEAD, error) {
	encoded, ok := s.d.Config.DBEncryption.Keys[keyID]
	if !ok {
		return nil, fmt.Errorf("database encryption key %q is not configured", keyID)
	}
	root, err := base64.RawURLEncoding.DecodeString(encoded)
	if err != nil {
		return nil, err
	}
	key, err := hkdf.Key(sha256.New, root, nil, rowID, 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// sealSecret is what to store for the secret of row rowID.
func (s *Server) sealSecret(rowID, secret string) (string, error) {
	enc := s.d.Config.DBEncryption
	if !enc.Encrypt {
		return secret, nil
	}
	aead, err := s.secretCipher(enc.KeyID, rowID)
	if err != nil {
		return "", err
	}
	sealed := sealedSecret{KeyID: enc.KeyID, Algorithm: sealAlgorithm, Nonce: make([]byte, aead.NonceSize())}
	if _, err := rand.Read(sealed.Nonce); err != nil {
		return "", err
	}
	sealed.Data = aead.Seal(nil, sealed.Nonce, []byte(secret), nil)
	b, err := json.Marshal(sealed)
	return string(b), err
}

// openSecret reads a stored secret; stale reports that it should be stored again (plain
// while encryption is on, or under another key than the current one).
func (s *Server) openSecret(rowID, stored string) (secret string, stale bool, err error) {
	enc := s.d.Config.DBEncryption
	var sealed sealedSecret
	if json.Unmarshal([]byte(stored), &sealed) != nil || sealed.Algorithm != sealAlgorithm || sealed.KeyID == "" {
		return stored, enc.Encrypt, nil
	}
	aead, err := s.secretCipher(sealed.KeyID, rowID)
	if err != nil {
		return "", false, err
	}
	if len(sealed.Nonce) != aead.NonceSize() {
		return "", false, fmt.Errorf("sealed secret of %s: bad nonce", rowID)
	}
	plain, err := aead.Open(nil, sealed.Nonce, sealed.Data, nil)
	if err != nil {
		return "", false, fmt.Errorf("sealed secret of %s: %w", rowID, err)
	}
	return string(plain), enc.Encrypt && sealed.KeyID != enc.KeyID || !enc.Encrypt, nil
}
