-- Statements that PostgreSQL planned again on every call (issue 27: the database's CPU
-- per request at 400 simulated students, where planning was a fifth of statement time).
-- Answers are unchanged; each item has a test that its work is gone.
--
-- 1. The authorship rules, ai_check_passed and ai_check_cleared, were SQL functions with
-- their own search_path. Such a function is never inlined: each statement that calls one
-- (the gateway before grading, every submissions_with_details read, twice per row) parsed
-- and planned its body again, and ai_check_cleared in turn called ai_check_passed. Without
-- the SET clause they inline into the calling statement as plain expressions. Every name
-- in them is schema-qualified (operators too), so the caller's search_path cannot change
-- their meaning. CREATE OR REPLACE keeps their grants.
create or replace function public.ai_check_passed(p_decision text, p_probability numeric) returns boolean
language sql immutable as $$
  select case when coalesce(p_decision, '') operator(pg_catalog.<>) '' then pg_catalog.upper(p_decision) operator(pg_catalog.=) 'PASSED'
              else p_probability is not null and p_probability operator(pg_catalog.<=) 30::pg_catalog.numeric end
$$;

create or replace function public.ai_check_cleared(p_decision text, p_probability numeric) returns boolean
language sql immutable as $$
  select public.ai_check_passed(p_decision, p_probability)
      or pg_catalog.upper(coalesce(p_decision, '')) operator(pg_catalog.=) 'RELEASED'
$$;

-- 2. case_submissions_freeze_appealed runs before every update of a submission, and its
-- condition holds a subquery, so each run planned it anew. Only an edit of the text or the
-- difficulty can be refused, so the trigger now fires only for those: the gateway's status,
-- check and grade updates no longer call it.
drop trigger case_submissions_freeze_appealed on public.case_submissions;
create trigger case_submissions_freeze_appealed before update on public.case_submissions
  for each row
  when (new.submission_text is distinct from old.submission_text or new.difficulty_rating is distinct from old.difficulty_rating)
  execute function public.case_submissions_freeze_appealed();

-- 3. The AI gateway reads the texts of a case's articles before every model call, joining
-- the cited (code, number) pairs to code_articles. Its generic plan (a nested loop over the
-- primary key) is estimated for ten pairs, a custom plan for the few a case cites, so
-- PostgreSQL kept planning it per call. Inside a PL/pgSQL function with a generic plan it is
-- planned once per connection. Position i (1-based) names the pair; a pair not in the codes
-- has no row.
create function casus_meta.article_texts(p_codes text[], p_numbers text[]) returns table (pos int, article text)
language plpgsql stable set search_path = '' set plan_cache_mode = force_generic_plan as $$
begin
  return query
    select r.i::int, coalesce(nullif(a.title, '') || E'\n', '') || a.body
    from unnest(p_codes, p_numbers) with ordinality as r(code, number, i)
    join public.code_articles a on a.code = r.code and a.article_number = r.number;
end
$$;
revoke all on function casus_meta.article_texts(text[], text[]) from public;

-- 4. search_cases (022) asked the trigram index for each tier's matches past the first 256
-- codes in order, and for the code tier at once: two statements run with EXECUTE, so
-- planned on every search, even when those first codes were all the codes there are (the
-- 131 shipped cases, plus a student's own), where the answer was already read. Now, when
-- the first 256 codes are all of them, every tier filters them, in code order, and stops
-- there. Past 256 codes nothing changes. Tiers, conditions and order are 022's.
create or replace function public.search_cases(search_query text, max_results int default 10)
returns table (id uuid, case_code text, title text, level text, verified boolean, category text,
  subcategory text, domain text)
language plpgsql stable set search_path = '' as $$
declare
  head constant int := 256;     -- codes read in order before asking the trigram index
  sparse constant int := 2000;  -- matches the trigram index hands over whole
  probe constant int := 2000;   -- codes read in order when matches are many
  q text := public.search_fold(btrim(coalesce(search_query, '')));
  want int := least(greatest(coalesce(max_results, 10), 0), 50);
  lit text;
  kind int; -- 1: title word starts (two characters), 2: inside codes, 3: inside titles
  cond text;
  p1 text;
  p2 text;
  head_end text; -- the last of the first `head` codes
  after text;    -- the tier's matches up to this code are returned already
  boundary text;
  got int;
  ids uuid[];
  n int;
  seqscan text;
  idxscan text;
  whole boolean; -- the first `head` codes are all the codes the caller sees
begin
  if char_length(q) < 2 or want = 0 then
    return;
  end if;
  lit := replace(replace(replace(q, '\', '\\'), '%', '\%'), '_', '\_');
  -- Codes starting with the query: one btree range scan in code order (as in 020).
  return query
    select c.id, c.case_code, c.title, c.level, c.verified, c.category, c.subcategory, c.domain
    from (select s.case_id, s.code_fold from public.case_search s
          where s.code_fold >= (q collate "C") and s.code_fold < ((q || chr(1114111)) collate "C")
          order by s.code_fold limit want) m
    join public.cases c on c.id = m.case_id
    order by m.code_fold;
  get diagnostics got = row_count;
  want := want - got;
  if want > 0 then
    select s.code_fold into head_end from public.case_search s order by s.code_fold offset head - 1 limit 1;
    whole := head_end is null;
    head_end := coalesce(head_end, chr(1114111));
  end if;
  for tier in 2..3 loop
    exit when want <= 0;
    if char_length(q) < 3 then
      -- Word starts only for letters and digits: "_a" would otherwise fetch every word
      -- starting with "a" from the index just to recheck it away.
      exit when tier = 3 or q !~ '^[[:alnum:]]+$';
      kind := 1;
      cond := '(s.title_fold like $1 or s.title_fold like $2) and s.code_fold not like ($1 collate "C")';
      p1 := lit || '%';
      p2 := '% ' || lit || '%';
    elsif tier = 2 then
      kind := 2;
      cond := 's.code_fold like ($1 collate "C") and s.code_fold not like ($2 collate "C")';
      p1 := '%' || lit || '%';
      p2 := lit || '%';
    else
      kind := 3;
      cond := 's.title_fold like $1 and s.code_fold not like ($1 collate "C") and $2 is null';
      p1 := '%' || lit || '%';
      p2 := null;
    end if;
    after := '';
    -- 1. Titles: the first `head` codes in order, filtered. A frequent word has its
    -- matches here and stops the scan early. (Codes rarely contain a word: the code tier
    -- skips this and asks the trigram index at once.)
    if kind <> 2 or whole then
      return query
        select c.id, c.case_code, c.title, c.level, c.verified, c.category, c.subcategory, c.domain
        from (select w.case_id, w.code_fold
              from (select x.case_id, x.code_fold, x.title_fold from public.case_search x order by x.code_fold limit head) w
              where case kind
                when 1 then (w.title_fold like p1 or w.title_fold like p2) and w.code_fold not like (p1 collate "C")
                when 2 then w.code_fold like (p1 collate "C") and w.code_fold not like (p2 collate "C")
                else w.title_fold like p1 and w.code_fold not like (p1 collate "C")
              end
              order by w.code_fold limit want) m
        join public.cases c on c.id = m.case_id
        order by m.code_fold;
      get diagnostics got = row_count;
      want := want - got;
      exit when want <= 0;
      -- Those codes were all of them: the tier is complete.
      continue when whole;
      after := head_end;
    end if;
    -- 2. Rare matches (no match at all included): the bitmap scan of the trigram index
    -- lists them, up to `sparse`, without reading the rows that do not match; they are
    -- sorted here. Sequential and plain index scans are off for this one statement: with
    -- a LIMIT the planner would otherwise pick a scan in code order, which reads every row
    -- when nothing matches (see 020). EXECUTE: planned with the patterns' values.
    seqscan := current_setting('enable_seqscan');
    idxscan := current_setting('enable_indexscan');
    perform set_config('enable_seqscan', 'off', true), set_config('enable_indexscan', 'off', true);
    execute 'select array_agg(h.case_id order by h.code_fold), count(*)::int from (select s.case_id, s.code_fold
        from public.case_search s where ' || cond || ' and s.code_fold > ($4 collate "C") limit $3) h'
      into ids, n using p1, p2, sparse, after;
    perform set_config('enable_seqscan', seqscan, true), set_config('enable_indexscan', idxscan, true);
    continue when n = 0;
    if n < sparse then
      return query
        select c.id, c.case_code, c.title, c.level, c.verified, c.category, c.subcategory, c.domain
        from unnest(ids[1:want]) with ordinality u(case_id, ord)
        join public.cases c on c.id = u.case_id
        order by u.ord;
      get diagnostics got = row_count;
      want := want - got;
      continue;
    end if;
    -- 3. Many matches: the next `probe` codes in order, filtered, as in 020...
    return query
      select c.id, c.case_code, c.title, c.level, c.verified, c.category, c.subcategory, c.domain
      from (select w.case_id, w.code_fold
            from (select x.case_id, x.code_fold, x.title_fold from public.case_search x
                  where x.code_fold > (after collate "C") order by x.code_fold limit probe) w
            where case kind
              when 1 then (w.title_fold like p1 or w.title_fold like p2) and w.code_fold not like (p1 collate "C")
              when 2 then w.code_fold like (p1 collate "C") and w.code_fold not like (p2 collate "C")
              else w.title_fold like p1 and w.code_fold not like (p1 collate "C")
            end
            order by w.code_fold limit want) m
      join public.cases c on c.id = m.case_id
      order by m.code_fold;
    get diagnostics got = row_count;
    want := want - got;
    if want > 0 then
      -- ...then every match past them, through the index the planner picks, sorted.
      select s.code_fold into boundary from public.case_search s where s.code_fold > (after collate "C")
        order by s.code_fold offset probe - 1 limit 1;
      boundary := coalesce(boundary, chr(1114111));
      return query execute 'select c.id, c.case_code, c.title, c.level, c.verified, c.category, c.subcategory, c.domain
        from (with hits as materialized (
          select s.case_id, s.code_fold from public.case_search s where ' || cond || ' and s.code_fold > ($4 collate "C"))
        select case_id, code_fold from hits order by code_fold limit $3) m
      join public.cases c on c.id = m.case_id order by m.code_fold'
        using p1, p2, want, boundary;
      get diagnostics got = row_count;
      want := want - got;
    end if;
  end loop;
end
$$;
