package aigw

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// reserve counts this request against the user's daily quota before the model is called,
// and refuses it (429) when the requests or tokens used today already reach the limits.
// The check and the count run under a per-user lock, so concurrent requests cannot all
// read the same total and slip past the limit together. Tokens are added when the reply
// is known (addTokens).
//
// The lock and the count go as one batch, one round trip: PostgreSQL runs the statements
// before the batch's Sync as one implicit transaction, so the lock is held until the count
// is committed, and the count's snapshot, taken after the lock, sees every earlier count.
func (s *Server) reserve(ctx context.Context, uid, task string) error {
	b := &pgx.Batch{}
	b.Queue("select pg_advisory_xact_lock(hashtextextended($1, 40))", uid)
	b.Queue(`with used as (
			select coalesce(sum(requests), 0) as requests, coalesce(sum(tokens), 0) as tokens
			from casus_meta.ai_usage where user_id = $1::uuid and day = current_date)
		insert into casus_meta.ai_usage (user_id, task, requests, tokens)
		select $1::uuid, $2, 1, 0 from used where used.requests < $3 and used.tokens < $4
		on conflict (user_id, day, task) do update set requests = ai_usage.requests + 1`,
		uid, task, s.d.Config.AIDailyRequests, s.d.Config.AIDailyTokens)
	br := s.d.Owner.SendBatch(ctx, b)
	_, err := br.Exec()
	var tag pgconn.CommandTag
	if err == nil {
		tag, err = br.Exec()
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return &apiError{429, "rate_limit_error", "Ai atins limita zilnică de utilizare a funcțiilor AI. Încearcă din nou mâine."}
	}
	return nil
}

// addTokens adds the tokens a reply reported to today's usage of this use.
func (s *Server) addTokens(ctx context.Context, uid, task string, tokens int) {
	if tokens <= 0 {
		return
	}
	if _, err := s.d.Owner.Exec(context.WithoutCancel(ctx), `update casus_meta.ai_usage set tokens = tokens + $3
		where user_id = $1::uuid and day = current_date and task = $2`, uid, task, tokens); err != nil {
		s.d.Log.Error("ai usage", "err", err)
	}
}
