-- search_cases plans its two fixed-shape queries once per session and skips a code tier
-- with no match at all. 006 ran every query through EXECUTE, which plans it again on each
-- call; with the RLS policy of cases in the join, planning was most of a search's time. Now:
--   * codes starting with the query are a range of the C-ordered code index, in static SQL
--     (a prefix LIKE needs a constant pattern to use that index; a range does not);
--   * the 2,000-code window is static SQL, the tier picked by a CASE in its filter;
--   * the code tier first asks the trigram index whether any code contains the query: a
--     word query ("raspunderea") used to scan the whole window and then the index, only to
--     find nothing. The title tier does not check first: titles tend to match densely, and
--     the window then answers at once;
--   * EXECUTE remains where the best plan depends on the pattern: that existence check and
--     the fetch past the window;
--   * the window's upper code is looked up only when the fetch past it is needed.
-- Tiers, conditions and order are those of 006, which explains the design. On 10,000 cases
-- (one client, pgbench, 006 -> 014): a word in every title 1.20 -> 0.58 ms, a code prefix
-- 0.35 -> 0.10 ms, two letters 0.70 -> 0.56 ms, no match at all 1.72 -> 1.26 ms.
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
    if kind = 2 then
      execute 'select exists(select 1 from public.case_search s where ' || cond || ')'
        into any_hit using p1, p2;
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
