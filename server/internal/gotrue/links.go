package gotrue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/db/dbsqlc"
	"casus/server/internal/mail"
)

// linkKind is what a mailed link does. The kind is part of the stored token hash, so a
// magic link cannot be redeemed as a (longer-lived) sign-up link, and it sets the
// lifetime: a confirmation is good for a day, recovery and magic links for an hour.
type linkKind struct {
	name      string // the link's type= value and the hash prefix
	tokenType string // the auth.one_time_tokens row it replaces
	mail      mail.Kind
	ttl       time.Duration
	flow      string // the PKCE flow's authentication method (the amr of its session)
}

var (
	linkSignup    = linkKind{"signup", "confirmation_token", mail.Confirmation, 24 * time.Hour, amrEmailSignup}
	linkMagic     = linkKind{"magiclink", "confirmation_token", mail.MagicLink, time.Hour, amrMagicLink}
	linkRecovery  = linkKind{"recovery", "recovery_token", mail.Recovery, time.Hour, amrRecovery}
	linkInvite    = linkKind{"invite", "confirmation_token", mail.Invite, 24 * time.Hour, amrInvite}
	linkKinds     = []linkKind{linkSignup, linkMagic, linkRecovery, linkInvite}
	linkTypeKinds = map[string][]linkKind{
		"signup": {linkSignup}, "invite": {linkInvite, linkSignup}, "magiclink": {linkMagic},
		"recovery": {linkRecovery}, "email": {linkSignup, linkMagic, linkInvite},
		"email_change": {linkEmailChangeCurrent, linkEmailChangeNew},
	}
)

// flowMethods are the PKCE flows a token type serves: a new link of that type replaces
// all of them, since it replaces the token they were bound to.
func (k linkKind) flowMethods() []string {
	var out []string
	for _, o := range linkKinds {
		if o.tokenType == k.tokenType {
			out = append(out, o.flow)
		}
	}
	return out
}

func (k linkKind) hash(token string) string {
	sum := sha256.Sum256([]byte(k.name + ":" + token))
	return hex.EncodeToString(sum[:])
}

// linkJob is a link to store and mail, done after the request has been answered, so the
// answer and its timing are the same whether or not the address has an account.
type linkJob struct {
	kind            linkKind
	email           string
	redirect        string
	unconfirmedOnly bool
	challenge       string // PKCE code_challenge of the request, "" for the implicit flow
	challengeMethod string
}

// linkQueue bounds the links waiting to be mailed; a full queue answers 429.
const linkQueue = 1024

// enqueueLink schedules a link job; it never waits.
func (s *Server) enqueueLink(j linkJob) error {
	select {
	case s.links <- j:
		return nil
	default:
		return errOverRequest
	}
}

// linkWorker stores and mails queued links until ctx ends.
func (s *Server) linkWorker(ctx context.Context) {
	defer s.workers.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case j := <-s.links:
			if err := s.issueLink(ctx, j); err != nil && ctx.Err() == nil {
				s.d.Log.Error("mailing a link", "kind", j.kind.name, "err", err)
			}
		}
	}
}

// issueLink stores the token, the PKCE flow and the user's *_sent_at in one statement
// (nothing when the address has no account) and mails the link.
func (s *Server) issueLink(ctx context.Context, j linkJob) error {
	if s.mailer == nil {
		return errors.New("SMTP is not configured")
	}
	token := randomToken(24)
	row, err := s.storeLink(ctx, s.q, j, token)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	return s.mailer.Send(mail.Compose(j.kind.mail, deref(row.Email), s.actionLink(token, j.kind.name, j.redirect)))
}

// storeLink stores a link's token (and the request's PKCE flow) for the address; no
// rows when the address has no account (or only a confirmed one and j asks otherwise).
func (s *Server) storeLink(ctx context.Context, q *dbsqlc.Queries, j linkJob, token string) (dbsqlc.LinkIssueRow, error) {
	return q.LinkIssue(ctx, dbsqlc.LinkIssueParams{
		Email: j.email, UnconfirmedOnly: j.unconfirmedOnly, TokenType: j.kind.tokenType, TokenHash: j.kind.hash(token),
		FlowMethods: j.kind.flowMethods(), AuthCode: randomToken(16), ChallengeMethod: j.challengeMethod,
		Challenge: j.challenge, AuthMethod: j.kind.flow,
	})
}

// actionLink is the /verify link of a token, on the API's public address
// (API_EXTERNAL_URL), as GoTrue mails it.
func (s *Server) actionLink(token, typ, redirect string) string {
	// GoTrue's order: token first (clients match "?token=").
	return s.d.Config.ExternalURL() + "/auth/v1/verify?token=" + url.QueryEscape(token) + "&type=" + url.QueryEscape(typ) +
		"&redirect_to=" + url.QueryEscape(redirect)
}

// pkceChallenge validates a request's code challenge; "" means the implicit flow.
func pkceChallenge(challenge, method string) (string, string, error) {
	if challenge == "" {
		return "", "", nil
	}
	method = strings.ToLower(method)
	if method != "s256" && method != "plain" {
		return "", "", errf(400, "validation_failed", "Code challenge method must be s256 or plain")
	}
	return challenge, method, nil
}

// redeemed is a consumed link: its user (confirmed now) and what the link was; pending
// is an e-mail change link whose other link is still to be followed.
type redeemed struct {
	user    dbsqlc.AuthUser
	kind    linkKind
	created time.Time
	pending bool
}

// consume redeems a one-time token of the given verify type, confirming the address.
func (s *Server) consume(ctx context.Context, token, typ string) (redeemed, error) {
	kinds, ok := linkTypeKinds[typ]
	if !ok {
		return redeemed{}, errf(400, "validation_failed", "Verify requires a verification type")
	}
	if token == "" {
		return redeemed{}, errf(400, "validation_failed", "Verify requires a token or a token hash")
	}
	var hashes, types []string
	for _, k := range kinds {
		hashes, types = append(hashes, k.hash(token)), append(types, k.tokenType)
	}
	row, err := s.q.OneTimeTokenTake(ctx, dbsqlc.OneTimeTokenTakeParams{TokenHashes: hashes, TokenTypes: types})
	if errors.Is(err, pgx.ErrNoRows) {
		return redeemed{}, errOTPExpired
	}
	if err != nil {
		return redeemed{}, err
	}
	var kind linkKind
	for _, k := range kinds {
		if k.hash(token) == row.TokenHash {
			kind = k
		}
	}
	if time.Since(row.CreatedAt.Time) > kind.ttl {
		return redeemed{}, errOTPExpired
	}
	if kind.flow == amrEmailChange {
		u, pending, err := s.confirmEmailChange(ctx, row.UserID)
		return redeemed{user: u, kind: kind, created: row.CreatedAt.Time, pending: pending}, err
	}
	u, err := s.q.UserConfirmLink(ctx, dbsqlc.UserConfirmLinkParams{UserID: row.UserID, KeepPassword: kind == linkSignup})
	if errors.Is(err, pgx.ErrNoRows) {
		return redeemed{}, errOTPExpired
	}
	return redeemed{user: u, kind: kind, created: row.CreatedAt.Time}, err
}
