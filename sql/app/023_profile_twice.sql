-- create_user_profile called twice at once for the same new account (the app's session read
-- and its sign-in event both find no profile, as a converted visitor's first page load
-- does): the second call waited on the unique index for the first's insert, then failed
-- with "profile already exists" although it described the same profile. It now returns
-- that profile, as 021 made a call after the first one do; a different profile is still
-- refused (23505).
create or replace function public.create_user_profile(p_id uuid, p_email text, p_name text, p_username text,
  p_university_code text, p_university_category text default null, p_university_name text default null)
returns public.user_profiles
language plpgsql volatile security definer set search_path = '' as $$
declare
  u auth.users;
  existing public.user_profiles;
begin
  if auth.uid() is not null and auth.uid() is distinct from p_id then
    raise exception 'cannot create a profile for another user' using errcode = '42501';
  end if;
  select * into u from auth.users where id = p_id and lower(email) = lower(btrim(p_email)) and deleted_at is null;
  if not found or (auth.uid() is null and auth.role() is distinct from 'service_role'
                   and u.created_at < now() - interval '1 hour') then
    raise exception 'no matching recent sign-up for this profile' using errcode = '42501';
  end if;
  for attempt in 1..2 loop
    select * into existing from public.user_profiles where id = p_id;
    if found then
      if lower(existing.username) = lower(coalesce(p_username, '')) and existing.name = btrim(coalesce(p_name, '')) then
        return existing;
      end if;
      raise exception 'profile already exists' using errcode = '23505';
    end if;
    begin
      return public.insert_user_profile(u, p_name, p_username, p_university_code, p_university_name);
    exception when unique_violation then
      -- Another call inserted this id first and has committed (the insert waited for it):
      -- the loop's second pass reads that profile. A taken username is not about this id.
      if attempt = 2 or not exists (select 1 from public.user_profiles where id = p_id) then
        raise;
      end if;
    end;
  end loop;
end
$$;
