-- Study content: the legal codes as articles, and the category catalogues.
-- Both are loaded by `casus seed` from files shipped in the repo (codes/, sql/seed/catalog/),
-- which stay the single source of truth; these tables are read-only to the API roles.

-- Case- and diacritics-insensitive folding usable in indexes (unaccent itself is only STABLE).
create or replace function public.casus_fold(t text) returns text
language sql immutable parallel safe strict as $$
  select lower(public.unaccent('public.unaccent'::regdictionary, t))
$$;

-- A text-search configuration that folds diacritics before the simple dictionary, so
-- "raspundere" matches "răspunderea" and ts_headline can highlight the original words.
create text search configuration public.casus_simple (copy = simple);
alter text search configuration public.casus_simple
  alter mapping for hword, hword_part, word with public.unaccent, simple;

create table public.code_articles (
  code text not null check (code in ('civil', 'penal', 'constitutional')),
  article_number text not null check (article_number ~ '^[0-9]+(\^[0-9]+)?$'),
  article_major int not null,
  article_minor int not null default 0,
  title text,
  body text not null,
  position int not null,
  heading_path text[] not null default '{}',
  search_vector tsvector generated always as (
    setweight(to_tsvector('public.casus_simple', coalesce(title, '')), 'A') ||
    setweight(to_tsvector('public.casus_simple', body), 'B')
  ) stored,
  primary key (code, article_number),
  unique (code, position)
);
create index code_articles_search_idx on public.code_articles using gin (search_vector);

create table public.law_domains (
  code text primary key check (code in ('civil', 'penal', 'constitutional', 'roman')),
  name text not null,
  case_prefix text unique,
  position int not null
);

create table public.law_categories (
  id text primary key,
  domain text not null references public.law_domains (code) on delete cascade,
  name text not null,
  description text not null default '',
  articles text not null default '',
  article_ranges jsonb not null default '[]',
  course text,
  weeks int[] not null default '{}',
  catch_all boolean not null default false,
  position int not null,
  unique (domain, name)
);

create table public.law_subcategories (
  category_id text not null references public.law_categories (id) on delete cascade,
  position int not null,
  name text not null,
  articles text not null default '',
  article_ranges jsonb not null default '[]',
  primary key (category_id, position),
  unique (category_id, name)
);

-- The flat "Category (Subcategory)" label list of each domain, ending with "Altele".
create view public.category_labels with (security_invoker = true) as
select c.domain, c.id as category_id, c.name as category, s.name as subcategory,
       case when c.catch_all then c.name else c.name || ' (' || s.name || ')' end as label,
       c.position * 1000 + coalesce(s.position, 0) as position
from public.law_categories c
left join public.law_subcategories s on s.category_id = c.id;

-- What the seeder last loaded, so re-seeding unchanged content is a no-op.
create table if not exists casus_meta.seed_state (
  key text primary key,
  content_hash text not null,
  loaded_at timestamptz not null default now()
);

alter table public.code_articles enable row level security;
alter table public.law_domains enable row level security;
alter table public.law_categories enable row level security;
alter table public.law_subcategories enable row level security;

-- Codes are for signed-in students; the catalogue is public reference data (the sign-up
-- and landing pages may show it).
grant select on public.code_articles to authenticated, service_role;
create policy code_articles_read on public.code_articles for select to authenticated using (true);
grant select on public.law_domains, public.law_categories, public.law_subcategories, public.category_labels
  to anon, authenticated, service_role;
create policy law_domains_read on public.law_domains for select to anon, authenticated using (true);
create policy law_categories_read on public.law_categories for select to anon, authenticated using (true);
create policy law_subcategories_read on public.law_subcategories for select to anon, authenticated using (true);

-- One article by code and number ("1357", "2029^1"; also accepts "2029^ 1" spacing).
create or replace function public.get_code_article(p_code text, p_number text)
returns setof public.code_articles
language sql stable security invoker as $$
  select * from public.code_articles
  where code = p_code and article_number = regexp_replace(p_number, '\s+', '', 'g')
$$;

-- Full-text search over the codes, insensitive to case and diacritics; results ranked,
-- with a highlighted excerpt.
create or replace function public.search_code_articles(p_query text, p_code text default null, p_limit int default 20)
returns table (code text, article_number text, title text, excerpt text, rank real)
language sql stable security invoker as $$
  with q as (
    select websearch_to_tsquery('public.casus_simple', coalesce(p_query, '')) as tsq
  )
  select a.code, a.article_number, a.title,
         ts_headline('public.casus_simple', a.body, q.tsq, 'MaxFragments=1, MaxWords=30, MinWords=10, StartSel=«, StopSel=»') as excerpt,
         ts_rank(a.search_vector, q.tsq) as rank
  from public.code_articles a, q
  where length(trim(coalesce(p_query, ''))) >= 2
    and (p_code is null or a.code = p_code)
    and a.search_vector @@ q.tsq
  order by rank desc, a.code, a.position
  limit least(greatest(coalesce(p_limit, 20), 1), 100)
$$;

grant execute on function public.get_code_article(text, text), public.search_code_articles(text, text, int)
  to authenticated, service_role;
revoke execute on function public.get_code_article(text, text), public.search_code_articles(text, text, int) from anon;

-- Model answers of the curriculum cases: for graders and future features, never for
-- students (no grant to anon or authenticated; service_role and the owner only).
create table public.case_model_answers (
  case_id uuid primary key references public.cases (id) on delete cascade,
  model_answer text not null,
  updated_at timestamptz not null default now()
);
alter table public.case_model_answers enable row level security;
revoke all on public.case_model_answers from anon, authenticated;
grant select, insert, update, delete on public.case_model_answers to service_role;
