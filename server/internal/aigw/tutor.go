package aigw

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"casus/server/internal/aigw/prompts"
	"casus/server/internal/authn"
	"casus/server/internal/db"
	"casus/server/internal/lawcodes"
)

// tutorRounds is how many questions reach the model per user and case; from the next
// one on the tutor answers the fixed closing message.
const tutorRounds = 4

// tutor answers one question of the Socratic tutor. The rounds and the history the model
// sees come from the gateway's own record of this user's conversation on this case
// (casus_meta.tutor_turns), never from the request: only the request's last user
// message, as text, is taken from it, so a forged assistant turn or a shortened history
// changes nothing. The case is read under the caller's RLS.
func (c *call) tutor(caseID string, msgs []message) error {
	if caseID == "" {
		return bad("X-Casus-Case is required for the tutor")
	}
	last := lastUser(msgs)
	if len(last) == 0 {
		return bad("messages must not be empty")
	}
	question, ok := textOf(last[0].Content)
	if !ok || strings.TrimSpace(question) == "" {
		return bad("the last user message must be text")
	}
	if utf8.RuneCountInString(question) > c.settings.MaxInput {
		return tooLarge(c.settings.MaxInput)
	}
	cs, err := c.s.loadCaseAs(c.ctx, c.claims, caseID)
	if err != nil {
		return err
	}
	if err := c.s.seminarAllowsTutor(c.ctx, c.uid, caseID); err != nil {
		return err
	}
	// The round is claimed before the model call, under a per-user-and-case lock, so
	// concurrent questions cannot all slip in as the 4th; a failed call gives it back.
	history, turnID, err := c.s.claimRound(c.ctx, c.uid, caseID, question)
	if err != nil {
		return err
	}
	if turnID == 0 {
		writeFixed(c.w, c.stream, c.model, prompts.TutorClosing)
		return nil
	}
	if err := c.s.reserve(c.ctx, c.uid, c.task); err != nil {
		c.s.releaseRound(c.ctx, turnID)
		return err
	}
	turns := append(history, turn{"user", question})
	var reply string
	if c.stream {
		reply, err = c.relay(prompts.Tutor(cs), turns)
	} else {
		reply, err = c.complete(prompts.Tutor(cs), turns)
		if err == nil {
			writeMessage(c.w, c.model, reply)
		}
	}
	if err == errGone {
		return err // the model was called: the round counts, without its answer
	}
	if err != nil {
		c.s.releaseRound(c.ctx, turnID) // the provider failed: the round is given back
		return err
	}
	if _, err := c.s.d.Owner.Exec(context.WithoutCancel(c.ctx), `insert into casus_meta.tutor_turns (user_id, case_id, role, content)
		values ($1, $2, 'assistant', $3)`, c.uid, caseID, reply); err != nil {
		c.s.d.Log.Error("tutor turn", "err", err)
	}
	return nil
}

// claimRound records the question as this user's next round on the case and returns the
// earlier turns, or turnID 0 when the rounds are used up. The lock, the read of the turns
// and the conditional insert go as one batch, one round trip, run by PostgreSQL as one
// implicit transaction (see reserve): the insert counts the questions itself, after the
// lock, so concurrent questions cannot all slip in as the last round.
func (s *Server) claimRound(ctx context.Context, uid, caseID, question string) (history []turn, turnID int64, err error) {
	b := &pgx.Batch{}
	b.Queue("select pg_advisory_xact_lock(hashtextextended($1 || '/' || $2, 15))", uid, caseID)
	b.Queue(`select role, content from casus_meta.tutor_turns where user_id = $1 and case_id = $2 order by id`, uid, caseID)
	b.Queue(`insert into casus_meta.tutor_turns (user_id, case_id, role, content)
		select $1, $2, 'user', $3
		where (select count(*) from casus_meta.tutor_turns where user_id = $1 and case_id = $2 and role = 'user') < $4
		returning id`, uid, caseID, question, tutorRounds)
	br := s.d.Owner.SendBatch(ctx, b)
	defer func() {
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			history, turnID = nil, 0
		}
	}()
	if _, err = br.Exec(); err != nil {
		return nil, 0, err
	}
	rows, err := br.Query()
	if err != nil {
		return nil, 0, err
	}
	for rows.Next() {
		var t turn
		if err = rows.Scan(&t.Role, &t.Content); err != nil {
			rows.Close()
			return nil, 0, err
		}
		// A question whose answer never came (the browser left mid-stream) is kept
		// as a round but not sent again: the model sees strict user/assistant turns.
		if n := len(history); n > 0 && history[n-1].Role == t.Role {
			history = history[:n-1]
		}
		history = append(history, t)
	}
	rows.Close()
	if err = rows.Err(); err != nil {
		return nil, 0, err
	}
	if n := len(history); n > 0 && history[n-1].Role == "user" {
		history = history[:n-1]
	}
	if err = br.QueryRow().Scan(&turnID); errors.Is(err, pgx.ErrNoRows) {
		return history, 0, nil // the rounds are used up
	}
	return history, turnID, err
}

func (s *Server) releaseRound(ctx context.Context, turnID int64) {
	if _, err := s.d.Owner.Exec(context.WithoutCancel(ctx), "delete from casus_meta.tutor_turns where id = $1", turnID); err != nil {
		s.d.Log.Error("tutor turn", "err", err)
	}
}

// loadCaseAs reads a case as the caller, so RLS decides whether they may see it (a
// rejected case of another author is "not found", as through the data API). The case goes
// as the data API's requests go, in one round trip (the role's settings and the read, one
// implicit transaction); the texts of its articles, the shipped codes every account may
// read, in a second.
func (s *Server) loadCaseAs(ctx context.Context, claims *authn.Claims, id string) (prompts.Case, error) {
	var c prompts.Case
	if !canonicalUUID(id) {
		return c, errCaseNotFound
	}
	conn, err := s.d.API.Acquire(ctx)
	if err != nil {
		return c, err
	}
	defer conn.Release()
	found := false
	err = db.SendAsRole(ctx, conn.Conn(), claims, db.ReadOnly, db.RequestInfo{}, false, func(b *pgx.Batch) {
		b.Queue(caseSQL, id).QueryRow(func(r pgx.Row) error {
			err := scanCase(r, &c)
			if errors.Is(err, pgx.ErrNoRows) {
				return nil
			}
			found = err == nil
			return err
		})
	})
	if err != nil {
		return c, err
	}
	if !found {
		return c, errCaseNotFound
	}
	conn.Release()
	return c, withArticleTexts(ctx, s.d.Owner, &c)
}

var errCaseNotFound = &apiError{404, "not_found_error", "Cazul nu există."}

// querier is what readCase needs of a transaction or a pool.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

var _ querier = (*pgxpool.Pool)(nil)

// caseSQL reads a case with its article references, steps and hints in one statement.
const caseSQL = `select title, domain, legal_problem, case_description, question,
		coalesce((select array_agg(article_reference order by article_number) from case_articles where case_id = c.id), '{}'),
		coalesce((select array_agg(step_description order by step_number) from case_analysis_steps where case_id = c.id), '{}'),
		coalesce((select array_agg(hint_text order by hint_number) from case_hints where case_id = c.id), '{}')
		from cases c where id = $1::uuid`

// articleTextsSQL reads the texts of several articles at once, each with its title on
// a first line; $1 and $2 are parallel arrays of codes and numbers, and each row names
// its pair by position (1-based). A pair that is not in the codes has no row. The
// function (sql/app 031) plans its join once per connection, not once per call.
const articleTextsSQL = `select pos, article from casus_meta.article_texts($1::text[], $2::text[])`

// readCase reads a case with its cited articles and their texts from code_articles, in
// two statements whatever the number of articles.
func readCase(ctx context.Context, q querier, id string) (prompts.Case, error) {
	var c prompts.Case
	if !canonicalUUID(id) {
		return c, errCaseNotFound
	}
	err := scanCase(q.QueryRow(ctx, caseSQL, id), &c)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, errCaseNotFound
	}
	if err != nil {
		return c, err
	}
	return c, withArticleTexts(ctx, q, &c)
}

// scanCase reads caseSQL's row.
func scanCase(r pgx.Row, c *prompts.Case) error {
	return r.Scan(&c.Title, &c.Domain, &c.LegalProblem, &c.Description, &c.Question, &c.Articles, &c.Steps, &c.Hints)
}

// withArticleTexts gives the case the texts of the articles it cites, read in one
// statement whatever their number.
func withArticleTexts(ctx context.Context, q querier, c *prompts.Case) error {
	var cited []lawcodes.Citation
	for _, ref := range c.Articles {
		a := prompts.Article{Ref: ref}
		if r, err := lawcodes.ParseReference(ref); err == nil {
			cited = append(cited, lawcodes.Citation{Code: r.Code, Number: r.Number})
		} else {
			cited = append(cited, lawcodes.Citation{}) // no text: keeps positions aligned
		}
		c.ArticleTexts = append(c.ArticleTexts, a)
	}
	texts, err := articleTexts(ctx, q, cited)
	if err != nil {
		return err
	}
	for i := range c.ArticleTexts {
		c.ArticleTexts[i].Text = texts[i]
	}
	return nil
}

// articleTexts returns the text of each cited article by its position in cited ("" for
// one the codes do not hold), read in one statement.
func articleTexts(ctx context.Context, q querier, cited []lawcodes.Citation) ([]string, error) {
	texts := make([]string, len(cited))
	if len(cited) == 0 {
		return texts, nil
	}
	codes, numbers := make([]string, len(cited)), make([]string, len(cited))
	for i, ct := range cited {
		codes[i], numbers[i] = ct.Code, ct.Number
	}
	rows, err := q.Query(ctx, articleTextsSQL, codes, numbers)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var i int
		var text string
		if err := rows.Scan(&i, &text); err != nil {
			return nil, err
		}
		texts[i-1] = text
	}
	return texts, rows.Err()
}

// seminarAllowsTutor refuses the tutor while a seminar assignment on the case, set
// without it, can still take this student's work (sql/app 026).
func (s *Server) seminarAllowsTutor(ctx context.Context, uid, caseID string) error {
	var allowed bool
	if err := s.d.Owner.QueryRow(ctx, `select public.seminar_tutor_allowed_for($1::uuid, $2::uuid)`, uid, caseID).Scan(&allowed); err != nil {
		return err
	}
	if !allowed {
		return &apiError{403, "permission_error", "Asistentul a stabilit că tema de seminar pe acest caz se rezolvă fără tutore."}
	}
	return nil
}
