-- search_cases skips a substring tier that has no match at all. Before, the code tier of a
-- word query ("raspunderea") scanned the 2,000-code window and then asked the trigram index,
-- only to find nothing; an existence check through the trigram index now answers that first.
-- Results are unchanged (the same tiers, conditions and order); see 006 for the design.
create or replace function public.search_cases(search_query text, max_results int default 10)
returns table (id uuid, case_code text, title text, level text, verified boolean, category text,
  subcategory text, domain text)
language plpgsql stable set search_path = '' as $$
declare
  probe constant int := 2000;
  q text := public.search_fold(btrim(coalesce(search_query, '')));
  want int := least(greatest(coalesce(max_results, 10), 0), 50);
  lit text;
  cond text;
  p1 text;
  p2 text;
  boundary text;
  got int;
  any_hit boolean;
  cols constant text := 'select c.id, c.case_code, c.title, c.level, c.verified, c.category, c.subcategory, c.domain ';
begin
  if char_length(q) < 2 or want = 0 then
    return;
  end if;
  lit := replace(replace(replace(q, '\', '\\'), '%', '\%'), '_', '\_');
  -- Codes starting with the query: one btree range scan in code order.
  return query execute cols || 'from (select s.case_id, s.code_fold from public.case_search s
      where s.code_fold like ($1 collate "C") order by s.code_fold limit $2) m
    join public.cases c on c.id = m.case_id order by m.code_fold'
    using lit || '%', want;
  get diagnostics got = row_count;
  want := want - got;
  for tier in 2..3 loop
    exit when want <= 0;
    if char_length(q) < 3 then
      -- Word starts only for letters and digits: "_a" would otherwise fetch every word
      -- starting with "a" from the index just to recheck it away.
      exit when tier = 3 or q !~ '^[[:alnum:]]+$';
      cond := '(s.title_fold like $1 or s.title_fold like $2) and s.code_fold not like ($1 collate "C")';
      p1 := lit || '%';
      p2 := '% ' || lit || '%';
    elsif tier = 2 then
      cond := 's.code_fold like ($1 collate "C") and s.code_fold not like ($2 collate "C")';
      p1 := '%' || lit || '%';
      p2 := lit || '%';
    else
      cond := 's.title_fold like $1 and s.code_fold not like ($1 collate "C") and $2 is null';
      p1 := '%' || lit || '%';
      p2 := null;
    end if;
    -- A tier with no match at all is common (a word is rarely part of a code): the
    -- trigram index says so in microseconds, where the window would scan `probe` rows.
    if char_length(q) >= 3 then
      execute 'select exists(select 1 from public.case_search s where ' || cond || ')'
        into any_hit using p1, p2;
      continue when not any_hit;
    end if;
    if boundary is null then
      select s.code_fold into boundary from public.case_search s order by s.code_fold offset probe - 1 limit 1;
      boundary := coalesce(boundary, chr(1114111));
    end if;
    -- EXECUTE plans with the actual patterns, which the planner needs to pick its indexes.
    -- The window is a LIMITed subquery so the planner cannot trade it for the trigram index.
    return query execute cols || 'from (select s.case_id, s.code_fold
        from (select * from public.case_search w order by w.code_fold limit $4) s
        where ' || cond || ' order by s.code_fold limit $3) m
      join public.cases c on c.id = m.case_id order by m.code_fold'
      using p1, p2, want, probe;
    get diagnostics got = row_count;
    want := want - got;
    if want > 0 then
      return query execute cols || 'from (with hits as materialized (
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
