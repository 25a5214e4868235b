package app

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/deps"
)

// syncMFARoles writes MFA_REQUIRED_ROLES into casus_meta.mfa_required_roles, the table the
// study schema's is_admin()/is_moderator() consult (sql/app/015): the database, not the
// app, refuses admin powers below aal2 to an enrolled user of those roles.
func syncMFARoles(ctx context.Context, d deps.Deps) error {
	roles := append([]string{}, d.Config.MFARequiredRoles...) // never nil: a nil slice is SQL NULL
	for _, r := range roles {
		if !slices.Contains([]string{"user", "moderator", "admin"}, r) {
			return fmt.Errorf("MFA_REQUIRED_ROLES: unknown role %q (user, moderator, admin)", r)
		}
	}
	return pgx.BeginFunc(ctx, d.Owner, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "delete from casus_meta.mfa_required_roles where role <> all($1::text[])", roles); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "insert into casus_meta.mfa_required_roles select unnest($1::text[]) on conflict do nothing", roles)
		return err
	})
}

// syncFeedbackLimits writes FEEDBACK_RATE_LIMIT_PER_IP and FEEDBACK_RATE_LIMIT_TOTAL into
// casus_meta.feedback_limits, which the feedback table's trigger reads (sql/app 024): the
// limit holds for the RPC and the table alike, for a batch as for single rows.
func syncFeedbackLimits(ctx context.Context, d deps.Deps) error {
	perIP, total := d.Config.FeedbackPerIP, d.Config.FeedbackTotal
	if perIP <= 0 {
		perIP = 5 // 0 = the default, as for the realtime limits
	}
	if total <= 0 {
		total = 200
	}
	_, err := d.Owner.Exec(ctx, `update casus_meta.feedback_limits set per_ip = $1, total = $2`, perIP, total)
	return err
}
