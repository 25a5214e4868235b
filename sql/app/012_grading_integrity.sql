-- Grading students can trust (issue 15, server side).
--
-- * A submission is claimed for grading atomically (status 'grading', set by the gateway
--   only while it is 'submitted'); the update policy of 005 lets the owner edit only a
--   'submitted' row, so the text cannot change while a grade is in flight. A failed call
--   puts it back to 'submitted'; a grade is recorded only from 'grading', exactly once.
--   grading_holder names the server process that holds the claim (the key of a session
--   advisory lock it keeps while it lives), so a claim of a server that died can be taken
--   again at once; grading_started_at bounds any claim in time as well.
-- * Every grade records how it was made: the prompt version, the model, and whether the
--   hidden reference block (model answer, steps, article texts) was in the prompt. The
--   strictness is difficulty_rating. score_breakdown holds the ten criteria in rubric
--   order: [{"id":"1.1","label":"…","score":n,"max":m,"comment":"…"}, …].
-- * The tutor's rounds are the gateway's own record (casus_meta.tutor_turns): what the
--   student asked and what the model answered, per user and case. The browser's copy in
--   chat_conversations is for display; it can be rewritten by its owner, so it neither
--   counts rounds nor supplies the history the model sees.
-- * Model answers of generated cases: save_generated_case stores "model_answer" in
--   case_model_answers in the same call; editors (the author of an unverified case, a
--   moderator) read and replace it through two RPCs. Students never read the table.
alter table public.case_submissions drop constraint if exists case_submissions_status_check;
alter table public.case_submissions add constraint case_submissions_status_check
  check (status in ('submitted', 'grading', 'graded'));
alter table public.case_submissions
  add column grade_prompt_version text,
  add column grade_model text,
  add column grade_reference_used boolean,
  add column grading_started_at timestamptz,
  add column grading_holder bigint;

create table casus_meta.tutor_turns (
  id bigint generated always as identity primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  case_id uuid not null references public.cases (id) on delete cascade,
  role text not null check (role in ('user', 'assistant')),
  content text not null,
  created_at timestamptz not null default now()
);
create index tutor_turns_user_case_idx on casus_meta.tutor_turns (user_id, case_id, id);

-- Replaces the model answer of a case the caller may edit; an empty text removes it.
create function public.set_case_model_answer(p_case_id uuid, p_model_answer text) returns void
language plpgsql volatile security definer set search_path = '' as $$
begin
  if not public.can_edit_case(p_case_id) then
    raise exception 'Nu poți modifica răspunsul-model al acestui caz' using errcode = '42501';
  end if;
  if btrim(coalesce(p_model_answer, '')) = '' then
    delete from public.case_model_answers where case_id = p_case_id;
  else
    insert into public.case_model_answers (case_id, model_answer) values (p_case_id, btrim(p_model_answer))
    on conflict (case_id) do update set model_answer = excluded.model_answer, updated_at = now();
  end if;
end
$$;

-- The model answer of a case the caller may edit (null when it has none).
create function public.case_model_answer(p_case_id uuid) returns text
language plpgsql stable security definer set search_path = '' as $$
declare
  answer text;
begin
  if not public.can_edit_case(p_case_id) then
    raise exception 'Nu poți vedea răspunsul-model al acestui caz' using errcode = '42501';
  end if;
  select model_answer into answer from public.case_model_answers where case_id = p_case_id;
  return answer;
end
$$;
revoke execute on function public.set_case_model_answer(uuid, text), public.case_model_answer(uuid) from public, anon;
grant execute on function public.set_case_model_answer(uuid, text), public.case_model_answer(uuid) to authenticated, service_role;

-- save_generated_case as in 006, plus the "model_answer" key (a string), stored in
-- case_model_answers in the same transaction.
create or replace function public.save_generated_case(p_case jsonb) returns uuid
language plpgsql volatile set search_path = '' as $$
declare
  uid uuid := auth.uid();
  new_id uuid;
  problems text[] := '{}';
  dom text;
  steps text[];
  hints text[];
begin
  if uid is null then
    raise exception 'Trebuie să fii autentificat pentru a salva cazuri' using errcode = '42501';
  end if;
  if p_case is null or jsonb_typeof(p_case) <> 'object' then
    raise exception 'case must be a JSON object' using errcode = '22023';
  end if;
  dom := lower(btrim(coalesce(p_case ->> 'domain', case left(upper(btrim(p_case ->> 'case_code')), 3)
    when 'CIV' then 'civil' when 'PEN' then 'penal' when 'CON' then 'constitutional' end)));

  select coalesce(array_agg(v order by n), '{}') into steps
  from (
    select btrim(case jsonb_typeof(e) when 'string' then e #>> '{}'
                 else coalesce(e ->> 'description', e ->> 'step_description') end) as v, n
    from jsonb_array_elements(case jsonb_typeof(p_case -> 'analysis_steps') when 'array' then p_case -> 'analysis_steps' else '[]' end)
      with ordinality as t (e, n)
  ) s where coalesce(v, '') <> '';
  select coalesce(array_agg(v order by n), '{}') into hints
  from (
    select btrim(case jsonb_typeof(e) when 'string' then e #>> '{}'
                 else coalesce(e ->> 'text', e ->> 'hint_text') end) as v, n
    from jsonb_array_elements(case jsonb_typeof(p_case -> 'hints') when 'array' then p_case -> 'hints' else '[]' end)
      with ordinality as t (e, n)
  ) h where coalesce(v, '') <> '';

  -- The spec's validation messages, joined with '. ' as the UI shows them.
  if btrim(coalesce(p_case ->> 'case_code', '')) = '' then problems := problems || 'Codul cazului este obligatoriu'::text; end if;
  if btrim(coalesce(p_case ->> 'title', '')) = '' then problems := problems || 'Titlul este obligatoriu'::text; end if;
  if btrim(coalesce(p_case ->> 'legal_problem', '')) = '' then problems := problems || 'Problema juridică este obligatorie'::text; end if;
  if btrim(coalesce(p_case ->> 'case_description', '')) = '' then problems := problems || 'Descrierea cazului este obligatorie'::text; end if;
  if btrim(coalesce(p_case ->> 'question', '')) = '' then problems := problems || 'Întrebarea este obligatorie'::text; end if;
  if dom in ('civil', 'constitutional') and btrim(coalesce(p_case ->> 'subcategory', '')) = '' then
    problems := problems || 'Subcategoria este obligatorie pentru cazuri civile/constituționale'::text;
  end if;
  if cardinality(steps) = 0 then problems := problems || 'Cel puțin un pas de analiză cu conținut este obligatoriu'::text; end if;
  if cardinality(hints) = 0 then problems := problems || 'Cel puțin un indiciu cu conținut este obligatoriu'::text; end if;
  if cardinality(problems) > 0 then
    raise exception '%', array_to_string(problems, '. ') using errcode = '23514';
  end if;

  insert into public.cases (user_id, case_code, title, level, week_number, legal_problem, case_description,
    question, category, subcategory, verified, domain)
  values (uid, p_case ->> 'case_code', btrim(p_case ->> 'title'), coalesce(nullif(btrim(p_case ->> 'level'), ''), 'Mediu'),
    coalesce((p_case ->> 'week_number')::int, 1), btrim(p_case ->> 'legal_problem'), btrim(p_case ->> 'case_description'),
    btrim(p_case ->> 'question'), nullif(btrim(p_case ->> 'category'), ''), nullif(btrim(p_case ->> 'subcategory'), ''),
    false, dom)
  returning id into new_id;

  insert into public.case_articles (case_id, article_number, article_reference)
  select distinct on (num) new_id, num, ref
  from (
    select n,
           btrim(case jsonb_typeof(e) when 'string' then e #>> '{}' else coalesce(e ->> 'article_number', e ->> 'number') end) as num,
           btrim(case jsonb_typeof(e) when 'string' then e #>> '{}'
                 else coalesce(e ->> 'article_reference', e ->> 'reference', e ->> 'article_number', e ->> 'number') end) as ref
    from jsonb_array_elements(case jsonb_typeof(p_case -> 'articles') when 'array' then p_case -> 'articles' else '[]' end)
      with ordinality as t (e, n)
  ) a
  where coalesce(num, '') <> '' and coalesce(ref, '') <> ''
  order by num, n;

  insert into public.case_analysis_steps (case_id, step_number, step_description)
  select new_id, n, v from unnest(steps) with ordinality as t (v, n);
  insert into public.case_hints (case_id, hint_number, hint_text)
  select new_id, n, v from unnest(hints) with ordinality as t (v, n);
  -- The model answer rides in the same call: a case is never saved without the answer
  -- its author wrote for it (the grader's reference).
  if btrim(coalesce(p_case ->> 'model_answer', '')) <> '' then
    perform public.set_case_model_answer(new_id, p_case ->> 'model_answer');
  end if;
  return new_id;
end
$$;
