package gotrue_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"testing"

	"github.com/fxamacker/cbor/v2"

	"casus/server/internal/config"
)

// softAuthenticator is a WebAuthn authenticator in software: one ECDSA P-256 credential,
// "packed" self-attestation or "none", as a platform authenticator answers a browser.
type softAuthenticator struct {
	t      *testing.T
	key    *ecdsa.PrivateKey
	credID []byte
	rpID   string
	origin string
	count  uint32
	format string // "packed" or "none"
}

func newSoftAuthenticator(t *testing.T, rpID, origin, format string) *softAuthenticator {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	id := make([]byte, 16)
	_, _ = rand.Read(id)
	return &softAuthenticator{t: t, key: key, credID: id, rpID: rpID, origin: origin, format: format}
}

var b64 = base64.RawURLEncoding

func (a *softAuthenticator) clientData(typ string, options map[string]any) []byte {
	pk := options["publicKey"].(map[string]any)
	cd, _ := json.Marshal(map[string]any{"type": typ, "challenge": pk["challenge"], "origin": a.origin, "crossOrigin": false})
	return cd
}

// authData is the authenticator data: RP id hash, flags (user present and verified, with
// attested credential data when registering), counter, then the credential.
func (a *softAuthenticator) authData(attested bool) []byte {
	h := sha256.Sum256([]byte(a.rpID))
	out := append([]byte{}, h[:]...)
	flags := byte(0x01 | 0x04)
	if attested {
		flags |= 0x40
	}
	a.count++
	out = append(out, flags)
	out = binary.BigEndian.AppendUint32(out, a.count)
	if !attested {
		return out
	}
	out = append(out, make([]byte, 16)...) // AAGUID: none
	out = binary.BigEndian.AppendUint16(out, uint16(len(a.credID)))
	out = append(out, a.credID...)
	x, y := a.key.PublicKey.X.FillBytes(make([]byte, 32)), a.key.PublicKey.Y.FillBytes(make([]byte, 32))
	cose, err := cbor.Marshal(map[int]any{1: 2, 3: -7, -1: 1, -2: x, -3: y})
	if err != nil {
		a.t.Fatal(err)
	}
	return append(out, cose...)
}

func (a *softAuthenticator) sign(authData, clientData []byte) []byte {
	cdh := sha256.Sum256(clientData)
	digest := sha256.Sum256(append(append([]byte{}, authData...), cdh[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, a.key, digest[:])
	if err != nil {
		a.t.Fatal(err)
	}
	return sig
}

// create answers registration options (the "create" challenge) with a new credential.
func (a *softAuthenticator) create(options map[string]any) map[string]any {
	cd := a.clientData("webauthn.create", options)
	ad := a.authData(true)
	stmt := map[string]any{}
	if a.format == "packed" {
		stmt = map[string]any{"alg": -7, "sig": a.sign(ad, cd)}
	}
	att, err := cbor.Marshal(map[string]any{"fmt": a.format, "attStmt": stmt, "authData": ad})
	if err != nil {
		a.t.Fatal(err)
	}
	return map[string]any{"id": b64.EncodeToString(a.credID), "rawId": b64.EncodeToString(a.credID), "type": "public-key",
		"response": map[string]any{"clientDataJSON": b64.EncodeToString(cd), "attestationObject": b64.EncodeToString(att)}}
}

// get answers assertion options (the "request" challenge).
func (a *softAuthenticator) get(options map[string]any) map[string]any {
	cd := a.clientData("webauthn.get", options)
	ad := a.authData(false)
	return map[string]any{"id": b64.EncodeToString(a.credID), "rawId": b64.EncodeToString(a.credID), "type": "public-key",
		"response": map[string]any{"clientDataJSON": b64.EncodeToString(cd), "authenticatorData": b64.EncodeToString(ad),
			"signature": b64.EncodeToString(a.sign(ad, cd))}}
}

const webauthnSite = "https://casus.example.ro"

// challengeOptions asks a challenge and returns its id and the credential options.
func (e *env) webauthnChallenge(fid, access, wantType string) (string, map[string]any) {
	e.t.Helper()
	ch := e.do("POST", "/auth/v1/factors/"+fid+"/challenge", map[string]any{"webauthn": map[string]any{"rpId": "casus.example.ro", "rpOrigins": []string{webauthnSite}}}, access)
	wa, _ := ch.body["webauthn"].(map[string]any)
	if ch.status != 200 || ch.body["type"] != "webauthn" || wa["type"] != wantType || ch.body["expires_at"] == nil {
		e.t.Fatalf("challenge: %d %v", ch.status, ch.body)
	}
	opts := wa["credential_options"].(map[string]any)
	pk := opts["publicKey"].(map[string]any)
	if rp, _ := pk["rp"].(map[string]any); wantType == "create" && rp["id"] != "casus.example.ro" {
		e.t.Fatalf("rp: %v", pk)
	}
	return ch.body["id"].(string), opts
}

// WebAuthn as a second factor: enrol (with and without a friendly name), the "create"
// challenge answered by a software authenticator verifies the factor and raises the
// session to aal2 with mfa/webauthn; a later sign-in is raised by a "request" challenge;
// a forged assertion is refused; unenrol brings the session back to aal1.
func TestWebAuthn(t *testing.T) {
	shared := start(t, func(c *config.Config) { c.SiteURL = webauthnSite })
	t.Run("SecondFactor", func(t *testing.T) { testWebAuthnSecondFactor(t, &env{t: t, srv: shared.srv, sink: shared.sink}) })
	t.Run("NoneAttestation", func(t *testing.T) { testWebAuthnNoneAttestation(t, &env{t: t, srv: shared.srv, sink: shared.sink}) })
}

func testWebAuthnSecondFactor(t *testing.T, e *env) {
	s := e.signupConfirmed("wa@example.ro", "secret1")
	access := s["access_token"].(string)

	named := e.do("POST", "/auth/v1/factors", map[string]any{"factor_type": "webauthn", "friendly_name": "Cheie"}, access)
	if named.status != 200 || named.body["type"] != "webauthn" || named.body["friendly_name"] != "Cheie" || named.body["totp"] != nil {
		t.Fatalf("enroll named: %d %v", named.status, named.body)
	}
	bare := e.do("POST", "/auth/v1/factors", map[string]any{"factor_type": "webauthn"}, access)
	if bare.status != 200 || bare.body["friendly_name"] != "" {
		t.Fatalf("enroll without a name: %d %v", bare.status, bare.body)
	}
	fid := named.body["id"].(string)

	// Verify-time errors, as GoTrue words them.
	cid, opts := e.webauthnChallenge(fid, access, "create")
	e.expectErr(e.do("POST", "/auth/v1/factors/"+fid+"/verify", map[string]any{"challenge_id": cid}, access), 400, "validation_failed")
	e.expectErr(e.do("POST", "/auth/v1/factors/"+fid+"/verify", map[string]any{"challenge_id": cid, "webauthn": map[string]any{"type": "bogus"}}, access), 400, "validation_failed")
	e.expectErr(e.do("POST", "/auth/v1/factors/"+fid+"/verify", map[string]any{"challenge_id": cid, "webauthn": map[string]any{"type": "create"}}, access), 400, "validation_failed")
	e.expectErr(e.do("POST", "/auth/v1/factors/"+fid+"/verify", map[string]any{"challenge_id": cid, "webauthn": map[string]any{"type": "create", "credential_response": map[string]any{"id": "x"}}}, access), 400, "validation_failed")
	// A credential made for another origin is refused.
	evil := newSoftAuthenticator(t, "casus.example.ro", "https://evil.example.com", "none")
	e.expectErr(e.do("POST", "/auth/v1/factors/"+fid+"/verify", map[string]any{"challenge_id": cid, "webauthn": map[string]any{"type": "create", "credential_response": evil.create(opts)}}, access), 422, "mfa_verification_failed")

	key := newSoftAuthenticator(t, "casus.example.ro", webauthnSite, "packed")
	cid, opts = e.webauthnChallenge(fid, access, "create")
	v := e.do("POST", "/auth/v1/factors/"+fid+"/verify", map[string]any{"challenge_id": cid,
		"webauthn": map[string]any{"type": "create", "rpId": "casus.example.ro", "credential_response": key.create(opts)}}, access)
	if v.status != 200 {
		t.Fatalf("verify create: %d %v", v.status, v.body)
	}
	if aal, amr := tokenAAL(t, v.body["access_token"]); aal != "aal2" || amr[0] != "mfa/webauthn" {
		t.Fatalf("after create: %s %v", aal, amr)
	}
	fs := factorsOf(v.body["user"])
	if len(fs) != 1 || fs[0]["id"] != fid || fs[0]["status"] != "verified" || fs[0]["factor_type"] != "webauthn" {
		t.Fatalf("factors (the unnamed unverified one goes): %v", fs)
	}
	// The same challenge cannot be answered twice.
	e.expectErr(e.do("POST", "/auth/v1/factors/"+fid+"/verify", map[string]any{"challenge_id": cid,
		"webauthn": map[string]any{"type": "create", "credential_response": key.create(opts)}}, access), 422, "mfa_ip_address_mismatch")

	// A new sign-in (aal1) is raised by an assertion.
	next := e.mfaSignIn("wa@example.ro", "secret1")["access_token"].(string)
	cid, opts = e.webauthnChallenge(fid, next, "request")
	forged := newSoftAuthenticator(t, "casus.example.ro", webauthnSite, "none")
	forged.credID = key.credID // right id, wrong key
	e.expectErr(e.do("POST", "/auth/v1/factors/"+fid+"/verify", map[string]any{"challenge_id": cid,
		"webauthn": map[string]any{"type": "request", "credential_response": forged.get(opts)}}, next), 422, "mfa_verification_failed")
	cid, opts = e.webauthnChallenge(fid, next, "request")
	a := e.do("POST", "/auth/v1/factors/"+fid+"/verify", map[string]any{"challenge_id": cid,
		"webauthn": map[string]any{"type": "request", "credential_response": key.get(opts)}}, next)
	if a.status != 200 {
		t.Fatalf("verify request: %d %v", a.status, a.body)
	}
	aal2 := a.body["access_token"].(string)
	if aal, _ := tokenAAL(t, aal2); aal != "aal2" {
		t.Fatalf("after request: %s", aal)
	}

	// Unenrol at aal2: the session falls back to aal1.
	if d := e.do("DELETE", "/auth/v1/factors/"+fid, nil, aal2); d.status != 200 || d.body["id"] != fid {
		t.Fatalf("unenroll: %d %v", d.status, d.body)
	}
	if aal, _ := tokenAAL(t, e.refresh(a.body["refresh_token"]).body["access_token"]); aal != "aal1" {
		t.Fatalf("after unenroll: %s", aal)
	}
}

// A key with "none" attestation enrols as well.
func testWebAuthnNoneAttestation(t *testing.T, e *env) {
	access := e.signupConfirmed("wa-none@example.ro", "secret1")["access_token"].(string)
	fid := e.do("POST", "/auth/v1/factors", map[string]any{"factor_type": "webauthn"}, access).body["id"].(string)
	cid, opts := e.webauthnChallenge(fid, access, "create")
	key := newSoftAuthenticator(t, "casus.example.ro", webauthnSite, "none")
	if v := e.do("POST", "/auth/v1/factors/"+fid+"/verify", map[string]any{"challenge_id": cid,
		"webauthn": map[string]any{"type": "create", "credential_response": key.create(opts)}}, access); v.status != 200 {
		t.Fatalf("verify: %d %v", v.status, v.body)
	}
}
