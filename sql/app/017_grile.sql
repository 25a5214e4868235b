-- Grile (issue 20): exam-style multiple-choice questions, practice with spaced repetition
-- (FSRS) and timed exam simulations. The file stands alone (it relies on 001-014).
--
-- Who sees what:
--   * questions: every signed-in user reads the statement and options (column grants);
--     the correct set, the explanations and the cited articles have no grant: they come
--     only from grile_answer (after answering in practice) and grile_exam_review (after
--     an exam is finished), never for a question of the caller's exam still running;
--   * attempts, FSRS cards, exams and exam answers: owner only; written only through the
--     RPCs below (SECURITY DEFINER), which score on the server: the client never says
--     whether an answer was right, and an exam's deadline is the database's clock.

-- Questions --------------------------------------------------------------------------------

create table public.grile_questions (
  id uuid primary key default gen_random_uuid(),
  -- GCIV001: G + domain prefix + 3 digits (sql/seed/grile/FORMAT.md); never reused.
  code text not null unique check (code ~ '^G(CIV|PEN|CON)[0-9]{3}$'),
  domain text not null check (domain in ('civil', 'penal', 'constitutional')),
  -- A law_categories id. No foreign key: the catalogue is reloaded wholesale by the seed,
  -- and a question (and every attempt on it) must not follow a reload; the seed checks it.
  category_id text not null,
  subcategory text not null,
  level text not null check (level in ('Ușor', 'Mediu', 'Dificil')),
  law_as_of date not null,
  statement text not null check (char_length(statement) between 20 and 600),
  -- Options a, b, c in this order.
  options text[] not null check (cardinality(options) = 3 and array_position(options, null) is null),
  -- The correct letters, sorted: {a}, {a,c}, {a,b,c}…
  correct text[] not null check (cardinality(correct) between 1 and 3 and correct <@ array['a', 'b', 'c']),
  -- One explanation per option, in the order of options.
  explanations text[] not null check (cardinality(explanations) = 3 and array_position(explanations, null) is null),
  -- The articles each option's explanation cites: [[{"code":"civil","article":"1357","label":"art. 1357 alin. (1) C.civ."}, …], [...], [...]]
  citations jsonb not null default '[[],[],[]]' check (jsonb_typeof(citations) = 'array' and jsonb_array_length(citations) = 3),
  -- Dropped from the files after students answered it: kept for their history, never drawn again.
  retired_at timestamptz,
  created_at timestamptz not null default now()
);
create index grile_questions_pick_idx on public.grile_questions (domain, category_id, level) where retired_at is null;

-- Letters, distinct and sorted; null for anything but a non-empty subset of {a, b, c}.
create function public.grile_letters(p text[]) returns text[]
language sql immutable parallel safe set search_path = '' as $$
  select case when p is null or cardinality(p) = 0 or not (p <@ array['a', 'b', 'c']) then null
              else (select array_agg(distinct x order by x) from unnest(p) x) end
$$;

-- Practice attempts ----------------------------------------------------------------------

create table public.grile_attempts (
  id bigint generated always as identity primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  question_id uuid not null references public.grile_questions (id) on delete restrict,
  chosen text[] not null,
  is_correct boolean not null,
  answered_at timestamptz not null default now()
);
create index grile_attempts_user_idx on public.grile_attempts (user_id, answered_at desc);
create index grile_attempts_question_idx on public.grile_attempts (question_id);

-- FSRS cards: one per user and question, the state of ts-fsrs's Card. The browser computes
-- the next state with ts-fsrs (both outcomes, before it knows which applies); grile_answer
-- keeps the one the server's scoring picks. Its dates are the browser's clock, accepted
-- within 36 hours of the server's (grile_card_interval).
create table public.grile_cards (
  user_id uuid not null references auth.users (id) on delete cascade,
  question_id uuid not null references public.grile_questions (id) on delete restrict,
  due timestamptz not null,
  stability double precision not null,
  difficulty double precision not null,
  elapsed_days int not null default 0,
  scheduled_days int not null default 0,
  learning_steps int not null default 0,
  reps int not null default 0,
  lapses int not null default 0,
  -- ts-fsrs State: 0 New, 1 Learning, 2 Review, 3 Relearning.
  state smallint not null check (state between 0 and 3),
  last_review timestamptz,
  last_correct boolean,
  primary key (user_id, question_id)
);
create index grile_cards_due_idx on public.grile_cards (user_id, due);
create index grile_cards_question_idx on public.grile_cards (question_id);

-- Exam simulations ----------------------------------------------------------------------

create table public.grile_exams (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  domain text check (domain in ('civil', 'penal', 'constitutional')),
  categories text[] not null default '{}',
  level text check (level in ('Ușor', 'Mediu', 'Dificil')),
  started_at timestamptz not null default now(),
  duration_seconds int not null check (duration_seconds between 60 and 4 * 3600),
  deadline timestamptz not null,
  finished_at timestamptz,
  question_count int not null check (question_count between 1 and 100),
  -- Questions answered with exactly the correct set (the bar exam's rule); set on finish.
  correct_count int check (correct_count between 0 and question_count),
  -- Per category, on finish: [{"category_id": "...", "total": n, "correct": k}, …]
  results jsonb,
  check ((finished_at is null) = (correct_count is null))
);
create index grile_exams_user_idx on public.grile_exams (user_id, started_at desc);
create index grile_exams_finished_idx on public.grile_exams (finished_at) where finished_at is not null;

create table public.grile_exam_answers (
  exam_id uuid not null references public.grile_exams (id) on delete cascade,
  position int not null check (position >= 1),
  question_id uuid not null references public.grile_questions (id) on delete restrict,
  chosen text[],
  answered_at timestamptz,
  -- Set when the exam is finished.
  is_correct boolean,
  primary key (exam_id, position),
  unique (exam_id, question_id)
);
create index grile_exam_answers_question_idx on public.grile_exam_answers (question_id);

-- Access ----------------------------------------------------------------------------------

revoke all on public.grile_questions, public.grile_attempts, public.grile_cards, public.grile_exams,
  public.grile_exam_answers from public, anon, authenticated;
grant all on public.grile_questions, public.grile_attempts, public.grile_cards, public.grile_exams,
  public.grile_exam_answers to service_role;
alter table public.grile_questions enable row level security;
alter table public.grile_attempts enable row level security;
alter table public.grile_cards enable row level security;
alter table public.grile_exams enable row level security;
alter table public.grile_exam_answers enable row level security;

-- Statement and options for the signed-in; the answer key has no grant.
grant select (id, code, domain, category_id, subcategory, level, law_as_of, statement, options, retired_at, created_at)
  on public.grile_questions to authenticated;
create policy grile_questions_read on public.grile_questions for select to authenticated using (true);

grant select on public.grile_attempts, public.grile_cards, public.grile_exams, public.grile_exam_answers to authenticated;
create policy grile_attempts_read_own on public.grile_attempts for select to authenticated
  using (user_id = (select auth.uid()));
create policy grile_cards_read_own on public.grile_cards for select to authenticated
  using (user_id = (select auth.uid()));
create policy grile_exams_read_own on public.grile_exams for select to authenticated
  using (user_id = (select auth.uid()));
create policy grile_exam_answers_read_own on public.grile_exam_answers for select to authenticated
  using (exists (select 1 from public.grile_exams e where e.id = exam_id and e.user_id = (select auth.uid())));

-- Helpers (not API calls) ------------------------------------------------------------------

create function public.grile_require_user() returns uuid
language plpgsql stable set search_path = '' as $$
declare
  uid uuid := auth.uid();
begin
  if uid is null then
    raise exception 'Trebuie să fii autentificat' using errcode = '42501';
  end if;
  return uid;
end
$$;

-- True while the question is in an exam of the user that is still running (not finished,
-- deadline not passed): its answer key stays closed until then.
create function public.grile_in_running_exam(p_user uuid, p_question uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (select 1 from public.grile_exam_answers a join public.grile_exams e on e.id = a.exam_id
                 where e.user_id = p_user and a.question_id = p_question
                   and e.finished_at is null and now() < e.deadline)
$$;

-- Checks a ts-fsrs card (JSON) and returns its interval and fields; raises on nonsense.
create function public.grile_card_interval(p_card jsonb) returns interval
language plpgsql stable set search_path = '' as $$
declare
  due timestamptz;
  last timestamptz;
begin
  if p_card is null or jsonb_typeof(p_card) <> 'object' then
    raise exception 'card must be a JSON object' using errcode = '22023';
  end if;
  begin
    due := (p_card ->> 'due')::timestamptz;
    last := (p_card ->> 'last_review')::timestamptz;
    if (p_card ->> 'state')::int not between 1 and 3
       or (p_card ->> 'stability')::float8 not between 0.0001 and 36500
       or (p_card ->> 'difficulty')::float8 not between 1 and 10
       or (p_card ->> 'reps')::int < 1 or (p_card ->> 'lapses')::int < 0
       or coalesce((p_card ->> 'learning_steps')::int, 0) < 0
       or (p_card ->> 'elapsed_days')::int < 0 or (p_card ->> 'scheduled_days')::int < 0 then
      raise exception 'bad card';
    end if;
  exception when others then
    raise exception 'card is not a valid FSRS card: %', p_card using errcode = '22023';
  end;
  if due is null or last is null or due <= last or due - last > interval '36500 days' then
    raise exception 'card due must follow its review by at most 36500 days' using errcode = '22023';
  end if;
  -- The review is dated by the browser (so a test can move its clock with Playwright's
  -- page.clock); a clock further than 36 hours from the server's is refused. Moving it only
  -- moves the student's own schedule: nothing scored or shown to others depends on it.
  if last not between now() - interval '36 hours' and now() + interval '36 hours' then
    raise exception 'the review time is too far from the server''s clock' using errcode = '22023';
  end if;
  return due - last;
end
$$;

-- Practice ---------------------------------------------------------------------------------

-- Records an answer, scores it, keeps the FSRS card of the outcome and reveals the key.
-- p_if_wrong / p_if_right: the card ts-fsrs computed for rating Again / Good. The server
-- decides which one applies and checks that the wrong outcome does not come back later
-- than the right one and that the cards are sane (grile_card_interval).
create function public.grile_answer(p_question_id uuid, p_chosen text[], p_if_wrong jsonb, p_if_right jsonb)
returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
declare
  uid uuid := public.grile_require_user();
  q public.grile_questions;
  v_chosen text[] := public.grile_letters(p_chosen);
  ok boolean;
  card jsonb;
  wrong_iv interval := public.grile_card_interval(p_if_wrong);
  right_iv interval := public.grile_card_interval(p_if_right);
begin
  if v_chosen is null then
    raise exception 'Alege cel puțin o variantă (a, b sau c)' using errcode = '22023';
  end if;
  select * into q from public.grile_questions where id = p_question_id;
  if not found then
    raise exception 'Grila nu există' using errcode = 'P0002';
  end if;
  if public.grile_in_running_exam(uid, q.id) then
    raise exception 'Grila face parte dintr-o simulare în desfășurare' using errcode = '42501';
  end if;
  if wrong_iv > right_iv then
    raise exception 'a wrong answer must not be scheduled later than a right one' using errcode = '22023';
  end if;
  ok := v_chosen = q.correct;
  insert into public.grile_attempts (user_id, question_id, chosen, is_correct) values (uid, q.id, v_chosen, ok);
  card := case when ok then p_if_right else p_if_wrong end;
  insert into public.grile_cards as c (user_id, question_id, due, stability, difficulty, elapsed_days, scheduled_days,
    learning_steps, reps, lapses, state, last_review, last_correct)
  values (uid, q.id, (card ->> 'due')::timestamptz, (card ->> 'stability')::float8, (card ->> 'difficulty')::float8,
    (card ->> 'elapsed_days')::int, (card ->> 'scheduled_days')::int, coalesce((card ->> 'learning_steps')::int, 0),
    (card ->> 'reps')::int, (card ->> 'lapses')::int, (card ->> 'state')::smallint, (card ->> 'last_review')::timestamptz, ok)
  on conflict (user_id, question_id) do update set due = excluded.due, stability = excluded.stability,
    difficulty = excluded.difficulty, elapsed_days = excluded.elapsed_days, scheduled_days = excluded.scheduled_days,
    learning_steps = excluded.learning_steps, reps = excluded.reps, lapses = excluded.lapses, state = excluded.state,
    last_review = excluded.last_review, last_correct = excluded.last_correct;
  return jsonb_build_object('is_correct', ok, 'chosen', to_jsonb(v_chosen), 'correct', to_jsonb(q.correct),
    'explanations', to_jsonb(q.explanations), 'citations', q.citations, 'due', card ->> 'due');
end
$$;

-- Questions for a practice session: due cards first (by due date, as of p_now — the
-- browser's clock; it only orders the caller's own cards), then questions never answered
-- (random), then the rest by due date. Filters are optional (null = any).
create function public.grile_practice_set(p_domain text default null, p_categories text[] default null,
  p_level text default null, p_count int default 10, p_now timestamptz default now(), p_due_only boolean default false)
returns table (id uuid, code text, domain text, category_id text, subcategory text, level text, law_as_of date,
  statement text, options text[], card jsonb, is_due boolean)
language sql stable security invoker set search_path = '' as $$
  select q.id, q.code, q.domain, q.category_id, q.subcategory, q.level, q.law_as_of, q.statement, q.options,
         case when c.question_id is null then null else jsonb_build_object(
           'due', c.due, 'stability', c.stability, 'difficulty', c.difficulty, 'elapsed_days', c.elapsed_days,
           'scheduled_days', c.scheduled_days, 'learning_steps', c.learning_steps, 'reps', c.reps, 'lapses', c.lapses,
           'state', c.state, 'last_review', c.last_review) end,
         coalesce(c.due <= coalesce(p_now, now()), false)
  from public.grile_questions q
  left join public.grile_cards c on c.question_id = q.id and c.user_id = (select auth.uid())
  where q.retired_at is null
    and (p_domain is null or q.domain = p_domain)
    and (coalesce(cardinality(p_categories), 0) = 0 or q.category_id = any (p_categories))
    and (p_level is null or q.level = p_level)
    and (not coalesce(p_due_only, false) or c.due <= coalesce(p_now, now()))
  order by case when c.due <= coalesce(p_now, now()) then 0 when c.question_id is null then 1 else 2 end,
           c.due, random()
  limit least(greatest(coalesce(p_count, 10), 1), 100)
$$;

-- Progress per category of the caller: stăpânite (the schedule's interval is at least 21
-- days), în învățare (answered, interval shorter), noi (never answered).
create function public.grile_progress()
returns table (domain text, category_id text, total int, mastered int, learning int, new int)
language sql stable security invoker set search_path = '' as $$
  select q.domain, q.category_id, count(*)::int,
         count(*) filter (where c.due - c.last_review >= interval '21 days')::int,
         count(*) filter (where c.question_id is not null and not (c.due - c.last_review >= interval '21 days'))::int,
         count(*) filter (where c.question_id is null)::int
  from public.grile_questions q
  left join public.grile_cards c on c.question_id = q.id and c.user_id = (select auth.uid())
  where q.retired_at is null
  group by q.domain, q.category_id
  order by q.domain, q.category_id
$$;

-- Exams ------------------------------------------------------------------------------------

-- Scores an exam: a question counts only when exactly the correct set was chosen. Runs as
-- the owner; callers check the exam belongs to the user.
create function public.grile_exam_score(p_exam_id uuid) returns public.grile_exams
language plpgsql volatile security definer set search_path = '' as $$
declare
  e public.grile_exams;
begin
  select * into e from public.grile_exams where id = p_exam_id for update;
  if e.finished_at is not null then
    return e;
  end if;
  update public.grile_exam_answers a set is_correct = (a.chosen is not null and a.chosen = q.correct)
  from public.grile_questions q where q.id = a.question_id and a.exam_id = p_exam_id;
  update public.grile_exams x set finished_at = least(now(), x.deadline),
    correct_count = (select count(*) from public.grile_exam_answers a where a.exam_id = x.id and a.is_correct),
    results = (select coalesce(jsonb_agg(jsonb_build_object('category_id', r.category_id, 'total', r.total, 'correct', r.correct)
                 order by r.category_id), '[]')
               from (select q.category_id, count(*)::int as total, count(*) filter (where a.is_correct)::int as correct
                     from public.grile_exam_answers a join public.grile_questions q on q.id = a.question_id
                     where a.exam_id = x.id group by q.category_id) r)
  where x.id = p_exam_id
  returning * into e;
  return e;
end
$$;

-- Starts an exam: p_count random questions (default 30) matching the filters, p_minutes to
-- answer (default 45). Any exam of the caller still open is finished first.
create function public.grile_exam_start(p_domain text default null, p_categories text[] default null,
  p_level text default null, p_count int default 30, p_minutes int default 45)
returns public.grile_exams
language plpgsql volatile security definer set search_path = '' as $$
declare
  uid uuid := public.grile_require_user();
  e public.grile_exams;
  open_id uuid;
  n int;
begin
  if coalesce(p_count, 30) not between 1 and 100 then
    raise exception 'Numărul de grile trebuie să fie între 1 și 100' using errcode = '22023';
  end if;
  if coalesce(p_minutes, 45) not between 1 and 240 then
    raise exception 'Durata trebuie să fie între 1 și 240 de minute' using errcode = '22023';
  end if;
  for open_id in select id from public.grile_exams where user_id = uid and finished_at is null loop
    perform public.grile_exam_score(open_id);
  end loop;
  select count(*) into n from public.grile_questions q
  where q.retired_at is null and (p_domain is null or q.domain = p_domain)
    and (coalesce(cardinality(p_categories), 0) = 0 or q.category_id = any (p_categories))
    and (p_level is null or q.level = p_level);
  if n = 0 then
    raise exception 'Nu există grile pentru criteriile alese' using errcode = 'P0002';
  end if;
  insert into public.grile_exams (user_id, domain, categories, level, duration_seconds, deadline, question_count)
  values (uid, p_domain, coalesce(p_categories, '{}'), p_level, coalesce(p_minutes, 45) * 60,
    now() + make_interval(mins => coalesce(p_minutes, 45)), least(n, coalesce(p_count, 30)))
  returning * into e;
  insert into public.grile_exam_answers (exam_id, position, question_id)
  select e.id, row_number() over (), s.id
  from (select q.id from public.grile_questions q
        where q.retired_at is null and (p_domain is null or q.domain = p_domain)
          and (coalesce(cardinality(p_categories), 0) = 0 or q.category_id = any (p_categories))
          and (p_level is null or q.level = p_level)
        order by random() limit e.question_count) s;
  return e;
end
$$;

-- Saves (or clears, with an empty set) the answer to one question of a running exam; after
-- the deadline or once finished nothing is accepted.
create function public.grile_exam_answer(p_exam_id uuid, p_question_id uuid, p_chosen text[]) returns void
language plpgsql volatile security definer set search_path = '' as $$
declare
  uid uuid := public.grile_require_user();
  e public.grile_exams;
  v_chosen text[] := public.grile_letters(p_chosen);
begin
  if p_chosen is not null and cardinality(p_chosen) > 0 and v_chosen is null then
    raise exception 'Variantele sunt a, b și c' using errcode = '22023';
  end if;
  select * into e from public.grile_exams where id = p_exam_id and user_id = uid for share;
  if not found then
    raise exception 'Simularea nu există' using errcode = 'P0002';
  end if;
  if e.finished_at is not null or now() >= e.deadline then
    raise exception 'Simularea s-a încheiat; răspunsul nu mai poate fi modificat' using errcode = '42501';
  end if;
  update public.grile_exam_answers set chosen = v_chosen, answered_at = now()
  where exam_id = p_exam_id and question_id = p_question_id;
  if not found then
    raise exception 'Grila nu face parte din această simulare' using errcode = 'P0002';
  end if;
end
$$;

-- Finishes the caller's exam (also after its deadline) and returns it scored.
create function public.grile_exam_finish(p_exam_id uuid) returns public.grile_exams
language plpgsql volatile security definer set search_path = '' as $$
declare
  uid uuid := public.grile_require_user();
begin
  if not exists (select 1 from public.grile_exams where id = p_exam_id and user_id = uid) then
    raise exception 'Simularea nu există' using errcode = 'P0002';
  end if;
  return public.grile_exam_score(p_exam_id);
end
$$;

-- Every question of a finished exam of the caller, with the answer, the key and the
-- explanations.
create function public.grile_exam_review(p_exam_id uuid)
returns table (question_position int, question_id uuid, code text, category_id text, subcategory text, level text,
  statement text, options text[], chosen text[], is_correct boolean, correct text[], explanations text[], citations jsonb)
language plpgsql stable security definer set search_path = '' as $$
declare
  uid uuid := public.grile_require_user();
  e public.grile_exams;
begin
  select * into e from public.grile_exams x where x.id = p_exam_id and x.user_id = uid;
  if not found then
    raise exception 'Simularea nu există' using errcode = 'P0002';
  end if;
  if e.finished_at is null then
    raise exception 'Răspunsurile corecte se văd după încheierea simulării' using errcode = '42501';
  end if;
  return query
  select a.position, q.id, q.code, q.category_id, q.subcategory, q.level, q.statement, q.options, a.chosen,
         coalesce(a.is_correct, false), q.correct, q.explanations, q.citations
  from public.grile_exam_answers a join public.grile_questions q on q.id = a.question_id
  where a.exam_id = p_exam_id
  order by a.position;
end
$$;

revoke execute on function public.grile_letters(text[]), public.grile_require_user(),
  public.grile_in_running_exam(uuid, uuid), public.grile_card_interval(jsonb), public.grile_exam_score(uuid)
  from public, anon, authenticated;
revoke execute on function public.grile_answer(uuid, text[], jsonb, jsonb),
  public.grile_practice_set(text, text[], text, int, timestamptz, boolean), public.grile_progress(),
  public.grile_exam_start(text, text[], text, int, int), public.grile_exam_answer(uuid, uuid, text[]),
  public.grile_exam_finish(uuid), public.grile_exam_review(uuid) from public, anon;
grant execute on function public.grile_answer(uuid, text[], jsonb, jsonb),
  public.grile_practice_set(text, text[], text, int, timestamptz, boolean), public.grile_progress(),
  public.grile_exam_start(text, text[], text, int, int), public.grile_exam_answer(uuid, uuid, text[]),
  public.grile_exam_finish(uuid), public.grile_exam_review(uuid) to authenticated, service_role;
