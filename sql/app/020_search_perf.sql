-- search_cases: the code tier's existence check always asks the trigram index.
-- 009 let the planner pick the plan of `exists(...)`, and for a short pattern it guesses
-- hundreds of matches (0.8 % of the rows for "zzzz", 4 % for "123"), so a LIMIT 1 plan
-- that stops at the first row looked cheapest: a sequential scan, or with it disabled a
-- full index-only scan of the code index. When nothing matches ("zzzz", "furt") that reads
-- all 100,000 rows (a p99 of 15-17 ms in scripts/bench/search), the very case the check
-- was meant to make cheap. With sequential and plain index scans off for that one statement
-- the only plan left is the bitmap scan of the trigram index, which answers from the
-- posting lists (an absent trigram ends it at once). The settings are restored right after,
-- so the window and the fetch past it plan as before. Results are unchanged: tiers,
-- conditions and order are those of 006 and 009.
create or replace function public.search_cases(search_query text, max_results int default 10)
returns table (id uuid, case_code text, title text, level text, verified boolean, category text,
  subcategory text, domain text)
language plpgsql stable set search_path = '' as $$
declare
  probe constant int := 2000;
  q text := public.search_fold(btrim(coalesce(search_query, '')));
  want int := least(greatest(coalesce(max_results, 10), 0), 50);
  lit text;
  kind int; -- 1: title word starts (two characters), 2: inside codes, 3: inside titles
  cond text;
  p1 text;
  p2 text;
  boundary text;
  got int;
  any_hit boolean;
  seqscan text;
  idxscan text;
begin
  if char_length(q) < 2 or want = 0 then
    return;
  end if;
  lit := replace(replace(replace(q, '\', '\\'), '%', '\%'), '_', '\_');
  -- Codes starting with the query: one btree range scan in code order. In C order the
  -- codes starting with q sort from q up to q followed by U+10FFFF, the last character
  -- (codes are ASCII, so none has that character after the prefix). No LIKE here: with a
  -- parameter for a pattern the generic plan would add the trigram index to the scan.
  return query
    select c.id, c.case_code, c.title, c.level, c.verified, c.category, c.subcategory, c.domain
    from (select s.case_id, s.code_fold from public.case_search s
          where s.code_fold >= (q collate "C") and s.code_fold < ((q || chr(1114111)) collate "C")
          order by s.code_fold limit want) m
    join public.cases c on c.id = m.case_id
    order by m.code_fold;
  get diagnostics got = row_count;
  want := want - got;
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
    -- Codes rarely contain a word, so the code tier first asks the trigram index whether
    -- it has any match at all (microseconds), where the window would scan `probe` rows.
    -- EXECUTE: a generic plan would scan the table instead.
    -- (017) Only the bitmap scan of the trigram index is left to the planner here: with a
    -- LIMIT 1 it would otherwise pick a scan that reads every row when nothing matches.
    if kind = 2 then
      seqscan := current_setting('enable_seqscan');
      idxscan := current_setting('enable_indexscan');
      perform set_config('enable_seqscan', 'off', true), set_config('enable_indexscan', 'off', true);
      execute 'select exists(select 1 from public.case_search s where ' || cond || ')'
        into any_hit using p1, p2;
      perform set_config('enable_seqscan', seqscan, true), set_config('enable_indexscan', idxscan, true);
      continue when not any_hit;
    end if;
    -- The lowest `probe` codes, filtered. The window is a LIMITed subquery so the planner
    -- cannot trade it for the trigram index.
    return query
      select c.id, c.case_code, c.title, c.level, c.verified, c.category, c.subcategory, c.domain
      from (select w.case_id, w.code_fold
            from (select x.case_id, x.code_fold, x.title_fold from public.case_search x order by x.code_fold limit probe) w
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
      if boundary is null then
        select s.code_fold into boundary from public.case_search s order by s.code_fold offset probe - 1 limit 1;
        boundary := coalesce(boundary, chr(1114111));
      end if;
      -- Past the window the matches are sparse: fetch them all through the index the
      -- planner picks for these patterns (EXECUTE plans with the values) and sort them.
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
