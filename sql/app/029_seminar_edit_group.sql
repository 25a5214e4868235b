-- Editing a seminar group (issue 30, requested by the screens in SEMINAR-REQUESTS.md): its
-- staff change the name, faculty, academic year and semester; the same checks and messages
-- as seminar_create_group.
create function public.seminar_update_group(p_group_id uuid, p_name text, p_university_code text,
  p_academic_year text, p_semester int) returns public.seminar_groups
language plpgsql volatile security definer set search_path = '' as $$
declare
  g public.seminar_groups;
begin
  perform public.seminar_require_staff(p_group_id);
  if char_length(btrim(coalesce(p_name, ''))) not between 2 and 120 then
    raise exception 'Numele grupei trebuie să aibă între 2 și 120 de caractere.' using errcode = '22023';
  end if;
  if not exists (select 1 from public.universities u where u.code = p_university_code) then
    raise exception 'Alege facultatea din listă.' using errcode = '22023';
  end if;
  if coalesce(p_academic_year, '') !~ '^[0-9]{4}-[0-9]{4}$'
     or split_part(p_academic_year, '-', 2)::int <> split_part(p_academic_year, '-', 1)::int + 1 then
    raise exception 'Anul universitar are forma 2025-2026.' using errcode = '22023';
  end if;
  if p_semester is null or p_semester not in (1, 2) then
    raise exception 'Semestrul este 1 sau 2.' using errcode = '22023';
  end if;
  update public.seminar_groups
     set name = btrim(p_name), university_code = p_university_code, academic_year = p_academic_year, semester = p_semester
   where id = p_group_id
  returning * into g;
  return g;
end
$$;
revoke execute on function public.seminar_update_group(uuid, text, text, text, int) from public, anon;
grant execute on function public.seminar_update_group(uuid, text, text, text, int) to authenticated;
