// Package seed loads the study content — legal code articles, the category catalogues,
// the curriculum cases and the grile — into the database. Every loader is idempotent and skips
// work when its content hash matches what was loaded last (casus_meta.seed_state), so
// `make run` stays fast after the first start.
package seed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/catalog"
	"casus/server/internal/deps"
	"casus/server/internal/lawcodes"
)

// Run loads everything the product ships.
func Run(ctx context.Context, d deps.Deps) error {
	steps := []struct {
		name string
		load func(context.Context, pgx.Tx) (string, int, error)
	}{
		{"codes", loadCodes},
		{"catalog", loadCatalog},
		{"cases", loadCases},
		{"grile", loadGrile},
	}
	for _, s := range steps {
		if err := pgx.BeginFunc(ctx, d.Owner, func(tx pgx.Tx) error {
			msg, n, err := s.load(ctx, tx)
			if err != nil {
				return err
			}
			level := slog.LevelInfo
			if strings.Contains(msg, "skipped") {
				level = slog.LevelWarn
			}
			d.Log.Log(ctx, level, "seed", "content", s.name, "result", msg, "rows", n)
			return nil
		}); err != nil {
			return fmt.Errorf("seed %s: %w", s.name, err)
		}
	}
	return nil
}

// unchanged reports whether key was last loaded from content with this hash, and
// otherwise records the new hash (inside the caller's transaction).
func unchanged(ctx context.Context, tx pgx.Tx, key string, content any) (bool, error) {
	b, err := json.Marshal(content)
	if err != nil {
		return false, err
	}
	sum := sha256.Sum256(b)
	hash := hex.EncodeToString(sum[:])
	var old string
	err = tx.QueryRow(ctx, "select content_hash from casus_meta.seed_state where key = $1 for update", key).Scan(&old)
	if err == nil && old == hash {
		return true, nil
	}
	if err != nil && err != pgx.ErrNoRows {
		return false, err
	}
	_, err = tx.Exec(ctx, `insert into casus_meta.seed_state (key, content_hash) values ($1, $2)
		on conflict (key) do update set content_hash = excluded.content_hash, loaded_at = now()`, key, hash)
	return false, err
}

func loadCodes(ctx context.Context, tx pgx.Tx) (string, int, error) {
	var all []lawcodes.Article
	for _, c := range lawcodes.Codes {
		arts, err := lawcodes.Load(c)
		if err != nil {
			return "", 0, err
		}
		all = append(all, arts...)
	}
	same, err := unchanged(ctx, tx, "codes", all)
	if err != nil || same {
		return "unchanged", 0, err
	}
	if _, err := tx.Exec(ctx, "delete from public.code_articles"); err != nil {
		return "", 0, err
	}
	rows := make([][]any, len(all))
	for i, a := range all {
		var title any
		if a.Title != "" {
			title = a.Title
		}
		rows[i] = []any{a.Code, a.Number, a.Major, a.Minor, title, a.Body, a.Position, a.Headings}
	}
	n, err := tx.CopyFrom(ctx, pgx.Identifier{"public", "code_articles"},
		[]string{"code", "article_number", "article_major", "article_minor", "title", "body", "position", "heading_path"},
		pgx.CopyFromRows(rows))
	return "loaded", int(n), err
}

func loadCatalog(ctx context.Context, tx pgx.Tx) (string, int, error) {
	cat, err := catalog.Load()
	if err != nil {
		return "", 0, err
	}
	same, err := unchanged(ctx, tx, "catalog", cat.ByDomain)
	if err != nil || same {
		return "unchanged", 0, err
	}
	for i, d := range catalog.Domains {
		var prefix any
		if d.CasePrefix != "" {
			prefix = d.CasePrefix
		}
		if _, err := tx.Exec(ctx, `insert into public.law_domains (code, name, case_prefix, position) values ($1, $2, $3, $4)
			on conflict (code) do update set name = excluded.name, case_prefix = excluded.case_prefix, position = excluded.position`,
			d.Code, d.Name, prefix, i+1); err != nil {
			return "", 0, err
		}
	}
	// Categories are replaced wholesale: cases refer to them by name, not by key.
	if _, err := tx.Exec(ctx, "delete from public.law_categories"); err != nil {
		return "", 0, err
	}
	n := 0
	for _, d := range catalog.Domains {
		for i, c := range cat.ByDomain[d.Code] {
			ranges, _ := json.Marshal(c.ArticleRanges)
			weeks := c.Weeks
			if weeks == nil {
				weeks = []int{}
			}
			var course any
			if c.Course != "" {
				course = c.Course
			}
			if _, err := tx.Exec(ctx, `insert into public.law_categories
				(id, domain, name, description, articles, article_ranges, course, weeks, catch_all, position)
				values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
				c.ID, d.Code, c.Name, c.Description, c.Articles, ranges, course, weeks, c.CatchAll, i+1); err != nil {
				return "", 0, fmt.Errorf("category %s: %w", c.ID, err)
			}
			n++
			for j, s := range c.Subcategories {
				sr, _ := json.Marshal(s.ArticleRanges)
				if _, err := tx.Exec(ctx, `insert into public.law_subcategories (category_id, position, name, articles, article_ranges)
					values ($1, $2, $3, $4, $5)`, c.ID, j+1, s.Name, s.Articles, sr); err != nil {
					return "", 0, fmt.Errorf("subcategory %s/%s: %w", c.ID, s.Name, err)
				}
			}
		}
	}
	return "loaded", n, nil
}

// loadCases upserts the curriculum by case code (verified, no author, flagged curriculum,
// with the date of the law it was written against), replaces each case's articles, steps,
// hints and model answer, and retires the curriculum cases the files no longer hold.
func loadCases(ctx context.Context, tx pgx.Tx) (string, int, error) {
	cases, err := LoadCases()
	if err != nil {
		return "", 0, err
	}
	cat, err := catalog.Load()
	if err != nil {
		return "", 0, err
	}
	same, err := unchanged(ctx, tx, "cases", cases)
	if err != nil || same {
		return "unchanged", 0, err
	}
	var taken []string
	for _, c := range cases {
		category, ok := cat.Category(c.CategoryID)
		if !ok {
			return "", 0, fmt.Errorf("%s: unknown category %q", c.Code, c.CategoryID)
		}
		var id string
		var authored bool
		err := tx.QueryRow(ctx, "select id, user_id is not null from public.cases where case_code = $1", c.Code).Scan(&id, &authored)
		if err == nil && authored {
			// A user's case already has this code (codes share the generator's format).
			// It stays theirs: the seeder never turns a user's row into curriculum.
			taken = append(taken, c.Code)
			continue
		}
		switch err {
		case pgx.ErrNoRows:
			err = tx.QueryRow(ctx, `insert into public.cases
				(case_code, title, level, week_number, legal_problem, case_description, question, category, subcategory, verified, domain,
				 law_as_of, curriculum)
				values ($1, $2, $3, $4, $5, $6, $7, $8, $9, true, $10, $11, true) returning id`,
				c.Code, c.Title, c.Level, c.Week, c.LegalProblem, c.CaseDescription, c.Question, category.Name, c.Subcategory, c.Domain,
				lawAsOf(c)).Scan(&id)
		case nil:
			_, err = tx.Exec(ctx, `update public.cases set title = $2, level = $3, week_number = $4, legal_problem = $5,
				case_description = $6, question = $7, category = $8, subcategory = $9, verified = true, domain = $10,
				law_as_of = $11, curriculum = true, archived_at = null where id = $1`,
				id, c.Title, c.Level, c.Week, c.LegalProblem, c.CaseDescription, c.Question, category.Name, c.Subcategory, c.Domain,
				lawAsOf(c))
		}
		if err != nil {
			return "", 0, fmt.Errorf("%s: %w", c.Code, err)
		}
		for _, table := range []string{"case_articles", "case_analysis_steps", "case_hints"} {
			if _, err := tx.Exec(ctx, "delete from public."+table+" where case_id = $1", id); err != nil {
				return "", 0, err
			}
		}
		for _, ref := range c.Articles {
			r, err := lawcodes.ParseReference(ref)
			if err != nil {
				return "", 0, fmt.Errorf("%s: %w", c.Code, err)
			}
			if _, err := tx.Exec(ctx, "insert into public.case_articles (case_id, article_number, article_reference) values ($1, $2, $3)",
				id, r.Number, ref); err != nil {
				return "", 0, fmt.Errorf("%s article %s: %w", c.Code, ref, err)
			}
		}
		for i, s := range c.AnalysisSteps {
			if _, err := tx.Exec(ctx, "insert into public.case_analysis_steps (case_id, step_number, step_description) values ($1, $2, $3)",
				id, i+1, s); err != nil {
				return "", 0, err
			}
		}
		for i, h := range c.Hints {
			if _, err := tx.Exec(ctx, "insert into public.case_hints (case_id, hint_number, hint_text) values ($1, $2, $3)",
				id, i+1, h); err != nil {
				return "", 0, err
			}
		}
		disputed, err := json.Marshal(c.DisputedPoints)
		if err != nil {
			return "", 0, err
		}
		if c.DisputedPoints == nil {
			disputed = []byte("[]")
		}
		if _, err := tx.Exec(ctx, `insert into public.case_model_answers (case_id, model_answer, disputed_points) values ($1, $2, $3)
			on conflict (case_id) do update set model_answer = excluded.model_answer, disputed_points = excluded.disputed_points`, id, c.ModelAnswer, disputed); err != nil {
			return "", 0, err
		}
	}
	removed, archived, err := retireDroppedCases(ctx, tx, cases)
	if err != nil {
		return "", 0, err
	}
	msg := fmt.Sprintf("loaded (%d dropped cases deleted, %d archived)", removed, archived)
	if len(taken) > 0 {
		return msg + "; skipped, code used by a user's case: " + strings.Join(taken, ", "), len(cases) - len(taken), nil
	}
	return msg, len(cases), nil
}

// lawAsOf is the case's date for the database: null when a file lacks it (TestCurriculum
// rejects such a file; the loader still loads what it is given).
func lawAsOf(c Case) any {
	if c.LawAsOf == "" {
		return nil
	}
	return c.LawAsOf
}

// retireDroppedCases handles curriculum cases that are no longer in the files: a case
// nobody has worked on is deleted; one with submissions, completions or tutor conversations
// is kept for those students and archived (unlisted for everyone else, see the cases_read
// policy), so no student loses work.
func retireDroppedCases(ctx context.Context, tx pgx.Tx, cases []Case) (deleted, archived int64, err error) {
	codes := make([]string, len(cases))
	for i, c := range cases {
		codes[i] = c.Code
	}
	const used = `(exists (select 1 from public.case_submissions s where s.case_id = c.id)
		or exists (select 1 from public.case_completions k where k.case_id = c.id)
		or exists (select 1 from public.chat_conversations v where v.case_id = c.id))`
	tag, err := tx.Exec(ctx, `delete from public.cases c where c.curriculum and not (c.case_code = any($1)) and not `+used, codes)
	if err != nil {
		return 0, 0, fmt.Errorf("delete dropped cases: %w", err)
	}
	deleted = tag.RowsAffected()
	tag, err = tx.Exec(ctx, `update public.cases c set archived_at = now()
		where c.curriculum and c.archived_at is null and not (c.case_code = any($1))`, codes)
	if err != nil {
		return 0, 0, fmt.Errorf("archive dropped cases: %w", err)
	}
	return deleted, tag.RowsAffected(), nil
}
