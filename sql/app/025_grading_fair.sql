-- Grading a professor would sign (#33). grade_passes keeps every independent grading of
-- a submission (each pass's total and item points, no text): the recorded grade is their
-- reconciliation (mean of two, or the per-sub-item median of three when two differ by
-- more than 5). Written by the gateway (owner) only; students read it with their row.
alter table public.case_submissions add column grade_passes jsonb;

-- The AI-authorship verdict belongs to a student, a case and a text up to trivial edits
-- (text_key: a hash of the text lowered, diacritics folded, punctuation and spacing
-- dropped), not to a submission: a new submission or an edited text with the same key
-- gets the stored verdict without the model, so a FAILED cannot be re-rolled. Gateway
-- (owner) only; casus_meta is not exposed to the API roles.
create table casus_meta.ai_verdicts (
  user_id uuid not null references auth.users (id) on delete cascade,
  case_id uuid not null references public.cases (id) on delete cascade,
  text_key text not null,
  probability numeric(5, 2) check (probability between 0 and 100),
  decision text not null,
  justification text not null,
  created_at timestamptz not null default now(),
  primary key (user_id, case_id, text_key)
);

-- A case's disputed points and the routes a grader accepts on each (FORMAT.md,
-- disputed_points), kept with the hidden reference: [{issue, accepted_routes[], chosen}].
alter table public.case_model_answers add column disputed_points jsonb not null default '[]'::jsonb;
