-- The study app is default-deny: revoke the platform's Supabase-style default privileges
-- (platform 006) before creating anything; every grant below and in 002 is explicit.
alter default privileges in schema public revoke all on tables from anon, authenticated, service_role;
alter default privileges in schema public revoke all on sequences from anon, authenticated, service_role;

-- Domain schema (issue 4): the tables the app reads and writes through /rest/v1, with every
-- integrity rule a hand-crafted API call could break held by PostgreSQL itself.
-- Access rules (grants, RLS, guard triggers) are in 005, views and RPCs in 006.

-- Case- and diacritics-insensitive folding for search indexes. unaccent() is only STABLE
-- (its dictionary could change), so index expressions need this IMMUTABLE wrapper that
-- names the dictionary explicitly. Both Romanian s/t forms (comma-below ș ț and the legacy
-- cedilla ş ţ) fold to plain s/t.
create function public.search_fold(t text) returns text
language sql immutable parallel safe strict as $$
  select lower(public.unaccent('public.unaccent'::regdictionary, t))
$$;

-- The fixed university list of the sign-up picker (shared/domain/universities.yaml).
-- Codes are stable keys stored in user_profiles; position is the display order in a group.
create table public.universities (
  code text primary key,
  name text not null,
  category text not null check (category in ('Public', 'Private', 'Other')),
  position int not null unique
);

insert into public.universities (code, name, category, position) values
  ('UB', 'Universitatea din București', 'Public', 1),
  ('UBB', 'Universitatea „Babeș-Bolyai” din Cluj-Napoca', 'Public', 2),
  ('UAIC', 'Universitatea „Alexandru Ioan Cuza” din Iași', 'Public', 3),
  ('UVT', 'Universitatea de Vest din Timișoara', 'Public', 4),
  ('ULBS', 'Universitatea „Lucian Blaga” din Sibiu', 'Public', 5),
  ('UCV', 'Universitatea din Craiova', 'Public', 6),
  ('UTBv', 'Universitatea „Transilvania” din Brașov', 'Public', 7),
  ('UO', 'Universitatea din Oradea', 'Public', 8),
  ('UDJG', 'Universitatea „Dunărea de Jos” din Galați', 'Public', 9),
  ('UAB', 'Universitatea „1 Decembrie 1918” din Alba Iulia', 'Public', 10),
  ('UTgJ', 'Universitatea „Constantin Brâncuși” din Târgu Jiu', 'Public', 11),
  ('UPIT', 'Universitatea Națională de Știință și Tehnologie POLITEHNICA București – Centrul Universitar Pitești', 'Public', 12),
  ('UOC', 'Universitatea „Ovidius” din Constanța', 'Public', 13),
  ('USV', 'Universitatea „Ștefan cel Mare” din Suceava', 'Public', 14),
  ('UVTg', 'Universitatea „Valahia” din Târgoviște', 'Public', 15),
  ('APAIC', 'Academia de Poliție „Alexandru Ioan Cuza” din București', 'Public', 16),
  ('UNT', 'Universitatea „Nicolae Titulescu” din București', 'Private', 17),
  ('UTM', 'Universitatea „Titu Maiorescu” din București', 'Private', 18),
  ('UCDC', 'Universitatea Creștină „Dimitrie Cantemir” din București', 'Private', 19),
  ('URA', 'Universitatea Româno-Americană', 'Private', 20),
  ('USH', 'Universitatea „Spiru Haret”', 'Private', 21),
  ('UHD', 'Universitatea Hyperion din București', 'Private', 22),
  ('UEB', 'Universitatea Ecologică din București', 'Private', 23),
  ('UAS', 'Universitatea „Andrei Șaguna” din Constanța', 'Private', 24),
  ('UDG', 'Universitatea „Danubius” din Galați', 'Private', 25),
  ('UAG', 'Universitatea Agora din municipiul Oradea', 'Private', 26),
  ('UCBv', 'Universitatea „Constantin Brâncoveanu” din Pitești', 'Private', 27),
  ('UCDCTgM', 'Universitatea „Dimitrie Cantemir” din Târgu Mureș', 'Private', 28),
  ('UVVG', 'Universitatea de Vest „Vasile Goldiș” din Arad', 'Private', 29),
  ('UBV', 'Universitatea „Bogdan Vodă” din Cluj-Napoca', 'Private', 30),
  ('Other', 'Other (Please Specify)', 'Other', 31);

-- One profile per auth user, created by create_user_profile right after sign-up.
create table public.user_profiles (
  id uuid primary key references auth.users (id) on delete cascade,
  email text not null,
  name text not null check (char_length(btrim(name)) >= 2),
  -- Letters, digits, underscore; at least 3 (the spec's only bound; 50 keeps leaderboards sane).
  username text not null check (username ~ '^[A-Za-z0-9_]{3,50}$'),
  university_code text references public.universities (code) on update cascade,
  university_name text,
  university_category text check (university_category in ('Public', 'Private', 'Other')),
  role text not null default 'user' check (role in ('user', 'moderator', 'admin')),
  -- Kept for the app, which reads is_admin; generated so it can never disagree with role.
  is_admin boolean generated always as (role = 'admin') stored,
  created_at timestamptz not null default now()
);
-- Usernames are unique ignoring case ("Ana" and "ana" are the same leaderboard name).
create unique index user_profiles_username_key on public.user_profiles (lower(username));
create index user_profiles_created_at_idx on public.user_profiles (created_at);

create table public.cases (
  id uuid primary key default gen_random_uuid(),
  -- The author of a generated case; null for the curriculum. Keeping the case when its
  -- author leaves matters more than the link.
  user_id uuid default auth.uid() references auth.users (id) on delete set null,
  case_code text not null unique check (case_code ~ '^[A-Z0-9_.-]{2,40}$'),
  title text not null check (btrim(title) <> ''),
  level text not null default 'Mediu' check (level in ('Ușor', 'Mediu', 'Dificil')),
  week_number int not null default 1 check (week_number between 1 and 12),
  legal_problem text not null default '',
  case_description text not null default '',
  question text not null default '',
  category text,
  subcategory text check (char_length(subcategory) <= 200),
  verified boolean not null default false,
  domain text not null check (domain in ('civil', 'penal', 'constitutional', 'roman')),
  created_at timestamptz not null default now()
);
create index cases_week_created_idx on public.cases (week_number, created_at);
create index cases_subcategory_idx on public.cases (subcategory, week_number);
create index cases_domain_category_idx on public.cases (domain, category, subcategory);
create index cases_user_id_idx on public.cases (user_id);

-- Normalises what clients send: the code upper-cased and trimmed, the level capitalised
-- whatever its case or diacritics ('usor', 'UȘOR', 'uşor' → 'Ușor'), and the domain derived
-- from the code prefix when not given.
create function public.cases_normalise() returns trigger
language plpgsql as $$
declare
  folded text;
begin
  new.case_code := upper(btrim(new.case_code));
  folded := public.search_fold(btrim(new.level));
  new.level := case folded
    when 'usor' then 'Ușor'
    when 'mediu' then 'Mediu'
    when 'dificil' then 'Dificil'
    else new.level
  end;
  if new.domain is null then
    new.domain := case left(new.case_code, 3)
      when 'CIV' then 'civil'
      when 'PEN' then 'penal'
      when 'CON' then 'constitutional'
    end;
  else
    new.domain := lower(btrim(new.domain));
  end if;
  return new;
end
$$;
create trigger cases_normalise before insert or update on public.cases
  for each row execute function public.cases_normalise();

-- The search side of a case: code and title folded once on write, in a narrow table, so
-- search_cases scans and rechecks short rows instead of calling unaccent per candidate.
-- code_fold is in the "C" collation: one btree serves both prefix LIKE and ORDER BY.
create table public.case_search (
  case_id uuid primary key references public.cases (id) on delete cascade,
  code_fold text collate "C" not null,
  title_fold text not null
);
create index case_search_code_idx on public.case_search (code_fold);
-- fastupdate off: cases are written rarely and searched constantly, so no search should pay
-- for scanning a pending list of unmerged insertions.
create index case_search_code_trgm_idx on public.case_search using gin (code_fold gin_trgm_ops) with (fastupdate = off);
create index case_search_title_trgm_idx on public.case_search using gin (title_fold gin_trgm_ops) with (fastupdate = off);
alter table public.case_search alter column title_fold set statistics 1000;

create function public.cases_sync_search() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  insert into public.case_search (case_id, code_fold, title_fold)
  values (new.id, public.search_fold(new.case_code), public.search_fold(new.title))
  on conflict (case_id) do update set code_fold = excluded.code_fold, title_fold = excluded.title_fold;
  return null;
end
$$;
create trigger cases_sync_search after insert or update of case_code, title on public.cases
  for each row execute function public.cases_sync_search();

create table public.case_articles (
  id uuid primary key default gen_random_uuid(),
  case_id uuid not null references public.cases (id) on delete cascade,
  article_number text not null check (btrim(article_number) <> '' and char_length(article_number) <= 100),
  article_reference text not null check (btrim(article_reference) <> '' and char_length(article_reference) <= 200)
);
create index case_articles_case_idx on public.case_articles (case_id, article_number);

-- Steps and hints are numbered 1..n per case; the uniqueness is checked at the end of each
-- statement so a single UPDATE can renumber (swap) them.
create table public.case_analysis_steps (
  id uuid primary key default gen_random_uuid(),
  case_id uuid not null references public.cases (id) on delete cascade,
  step_number int not null check (step_number >= 1),
  step_description text not null check (btrim(step_description) <> ''),
  constraint case_analysis_steps_number_key unique (case_id, step_number) deferrable initially immediate
);

create table public.case_hints (
  id uuid primary key default gen_random_uuid(),
  case_id uuid not null references public.cases (id) on delete cascade,
  hint_number int not null check (hint_number >= 1),
  hint_text text not null check (btrim(hint_text) <> ''),
  constraint case_hints_number_key unique (case_id, hint_number) deferrable initially immediate
);

create table public.case_submissions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  case_id uuid not null references public.cases (id) on delete cascade,
  submission_text text not null check (btrim(submission_text) <> ''),
  difficulty_rating int not null default 3 check (difficulty_rating in (1, 3, 5)),
  -- submitted on creation; graded once a score is parsed (the grading path sets it).
  status text not null default 'submitted' check (status in ('submitted', 'graded')),
  feedback_text text,
  score text,
  score_value numeric(5, 2) check (score_value between 0 and 100),
  feedback_at timestamptz,
  submitted_at timestamptz not null default now(),
  constraint case_submissions_graded_has_score check (status <> 'graded' or (score_value is not null and feedback_at is not null))
);
create index case_submissions_user_idx on public.case_submissions (user_id, submitted_at desc);
create index case_submissions_case_idx on public.case_submissions (case_id);

-- First time a user scored strictly above 50 on a case. Written only by a trigger on
-- case_submissions, so completion never reverts even if a submission is later re-graded.
create table public.case_completions (
  user_id uuid not null references auth.users (id) on delete cascade,
  case_id uuid not null references public.cases (id) on delete cascade,
  submission_id uuid references public.case_submissions (id) on delete set null,
  completed_at timestamptz not null,
  primary key (user_id, case_id)
);

create table public.chat_conversations (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  -- null for general (case-less) conversations.
  case_id uuid references public.cases (id) on delete cascade,
  conversation_data jsonb not null default '[]' check (jsonb_typeof(conversation_data) = 'array'),
  message_count int not null default 0 check (message_count >= 0),
  last_message_at timestamptz not null default now(),
  created_at timestamptz not null default now()
);
create index chat_conversations_user_case_idx on public.chat_conversations (user_id, case_id, last_message_at desc);
create index chat_conversations_user_last_idx on public.chat_conversations (user_id, last_message_at desc);

create table public.feedback (
  id uuid primary key default gen_random_uuid(),
  -- null for anonymous visitors; feedback outlives an account that is deleted.
  user_id uuid references auth.users (id) on delete set null,
  email text check (email ~ '^[^@\s]+@[^@\s]+\.[^@\s]+$' and char_length(email) <= 320),
  body text not null check (btrim(body) <> '' and char_length(body) <= 10000),
  created_at timestamptz not null default now()
);
create index feedback_created_idx on public.feedback (created_at desc);
create index feedback_user_idx on public.feedback (user_id, created_at desc);
