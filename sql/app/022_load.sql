-- search_cases: rare matches come from the trigram index, not from a scan in code order.
-- 020 read the first 2000 codes in order, filtered, before going to the trigram index,
-- so a word matching few titles or none ("zzzz", a misspelt word, "caz 4711") always
-- paid for reading and testing those 2000 rows, plus the index scan after them. Now the
-- title tiers read only the first 256 codes in order (a frequent word finds its matches
-- there and stops early), then ask the trigram index for every match past them, up to
-- 2000, and sort those: for rare words that is a few posting lists and a handful of rows.
-- Only a pattern with more than 2000 matches past the first 256 codes falls back to 020's
-- path (the next 2000 codes in order, then the index). The code tier asks the index
-- first, as 020's existence check did. Results are unchanged: tiers, conditions and order
-- (each tier's matches by folded code) are those of 006, 009 and 020.
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
    if kind <> 2 then
      return query
        select c.id, c.case_code, c.title, c.level, c.verified, c.category, c.subcategory, c.domain
        from (select w.case_id, w.code_fold
              from (select x.case_id, x.code_fold, x.title_fold from public.case_search x order by x.code_fold limit head) w
              where case kind
                when 1 then (w.title_fold like p1 or w.title_fold like p2) and w.code_fold not like (p1 collate "C")
                else w.title_fold like p1 and w.code_fold not like (p1 collate "C")
              end
              order by w.code_fold limit want) m
        join public.cases c on c.id = m.case_id
        order by m.code_fold;
      get diagnostics got = row_count;
      want := want - got;
      exit when want <= 0;
      if head_end is null then
        select s.code_fold into head_end from public.case_search s order by s.code_fold offset head - 1 limit 1;
        head_end := coalesce(head_end, chr(1114111));
      end if;
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
