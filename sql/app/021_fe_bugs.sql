-- A sign-up creates its profile in the same statement as the account (issue 19, bug 1).
-- Before, the browser made the auth user and then called create_user_profile: a username
-- taken in between (or any failure of that second call) left an account without a profile
-- that could neither sign up again nor be seen by admins. Now a trigger on auth.users reads
-- the sign-up metadata (the form's name, username, university_code, university_name) and
-- inserts the profile, or refuses the insert, and with it the sign-up, with the spec's
-- message. create_user_profile stays (the spec's call) and returns the profile already made.

-- The profile rules, shared by the trigger and create_user_profile: the spec's messages,
-- raised with RAISE so that the auth service shows them as they are (gotrue passes a
-- trigger's RAISE on auth.users through as the error message).
create function public.insert_user_profile(p_user auth.users, p_name text, p_username text,
  p_university_code text, p_university_name text)
returns public.user_profiles
language plpgsql volatile security definer set search_path = '' as $$
declare
  uni public.universities;
  result public.user_profiles;
begin
  if char_length(btrim(coalesce(p_name, ''))) < 2 then
    raise exception 'Name must be at least 2 characters' using errcode = '23514';
  end if;
  if char_length(coalesce(p_username, '')) < 3 then
    raise exception 'Username must be at least 3 characters' using errcode = '23514';
  end if;
  if p_username !~ '^[A-Za-z0-9_]+$' then
    raise exception 'Username can only contain letters, numbers, and underscores' using errcode = '23514';
  end if;
  if char_length(p_username) > 50 then
    raise exception 'Numele de utilizator poate avea cel mult 50 de caractere' using errcode = '23514';
  end if;
  if exists (select 1 from public.user_profiles where lower(username) = lower(p_username)) then
    raise exception 'Username is already taken' using errcode = '23505';
  end if;
  select * into uni from public.universities where code = btrim(coalesce(p_university_code, ''));
  if not found then
    raise exception 'Please select a university' using errcode = '23503';
  end if;
  begin
    insert into public.user_profiles (id, email, name, username, university_code, university_name, university_category)
    values (p_user.id, p_user.email, btrim(p_name), p_username, uni.code,
            case when uni.code = 'Other' and btrim(coalesce(p_university_name, '')) not in ('', uni.name)
                 then left(btrim(p_university_name), 200) else uni.name end,
            uni.category)
    returning * into result;
  exception when unique_violation then
    -- Two sign-ups with the same username at once: the second waits on the unique index
    -- until the first commits, then lands here.
    if exists (select 1 from public.user_profiles where id = p_user.id) then
      raise exception 'profile already exists' using errcode = '23505';
    end if;
    raise exception 'Username is already taken' using errcode = '23505';
  end;
  return result;
end
$$;
revoke all on function public.insert_user_profile(auth.users, text, text, text, text) from public, anon, authenticated, service_role;

-- The trigger: a sign-up whose metadata names a username gets its profile now, or does not
-- happen. Accounts made without one (the admin API, invitations, magic links) have no
-- profile yet and complete it in the app on their first sign-in (create_user_profile as
-- themselves).
create function public.user_profile_from_signup() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  m jsonb := coalesce(new.raw_user_meta_data, '{}'::jsonb);
begin
  if jsonb_typeof(m) = 'object' and m ? 'username' then
    perform public.insert_user_profile(new, m ->> 'name', m ->> 'username', m ->> 'university_code', m ->> 'university_name');
  end if;
  return null;
end
$$;
revoke all on function public.user_profile_from_signup() from public, anon, authenticated, service_role;

create trigger user_profile_from_signup after insert on auth.users
  for each row execute function public.user_profile_from_signup();

-- create_user_profile as before (the same proof of the right to call it), with the rules
-- moved to insert_user_profile, and idempotent: when the profile already exists with this
-- name and username (made by the trigger at sign-up), it is returned; a different one is
-- still refused (23505), so nobody overwrites or reads a profile they did not describe.
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
  select * into existing from public.user_profiles where id = p_id;
  if found then
    if lower(existing.username) = lower(coalesce(p_username, '')) and existing.name = btrim(coalesce(p_name, '')) then
      return existing;
    end if;
    raise exception 'profile already exists' using errcode = '23505';
  end if;
  return public.insert_user_profile(u, p_name, p_username, p_university_code, p_university_name);
end
$$;
