-- Grading a professor would sign (#33). grade_passes keeps every independent grading of
-- a submission (each pass's total and item points, no text): the recorded grade is their
-- reconciliation (mean of two, or the per-sub-item median of three when two differ by
-- more than 5). Written by the gateway (owner) only; students read it with their row.
alter table public.case_submissions add column grade_passes jsonb;
