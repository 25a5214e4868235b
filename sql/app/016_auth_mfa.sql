-- Second factor for the roles that administer (MFA_REQUIRED_ROLES, default admin).
--
-- The database decides: an admin power (every policy and RPC that asks is_admin() or
-- is_moderator()) needs an aal2 token from a user whose role requires MFA once that user
-- has a verified factor. Before enrolling, such a user keeps their powers (the upgrade
-- locks nobody out; the app asks them to enrol on their next visit to /admin), and a
-- user who enrolled of their own accord in a role that does not require MFA is not held
-- to it. The roles that require MFA are a table the server fills from MFA_REQUIRED_ROLES
-- at start; whether the user has a verified factor is read from auth.mfa_factors by a
-- SECURITY DEFINER function, so neither the secret nor the factor rows are exposed.

create table casus_meta.mfa_required_roles (
  role text primary key check (role in ('user', 'moderator', 'admin'))
);
insert into casus_meta.mfa_required_roles values ('admin');

-- Does the caller's role require a second factor?
create function public.mfa_required() returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (select 1 from casus_meta.mfa_required_roles r where r.role = public.current_app_role())
$$;

-- Has the caller a verified factor?
create function public.mfa_enrolled() returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (select 1 from auth.mfa_factors f where f.user_id = auth.uid() and f.status = 'verified')
$$;

-- Is the caller's token good enough for their role's powers?
create function public.mfa_satisfied() returns boolean
language sql stable security definer set search_path = '' as $$
  select coalesce(auth.jwt() ->> 'aal', 'aal1') = 'aal2' or not (public.mfa_required() and public.mfa_enrolled())
$$;

create or replace function public.is_admin() returns boolean
language sql stable security definer set search_path = '' as $$
  select public.current_app_role() = 'admin' and public.mfa_satisfied()
$$;

create or replace function public.is_moderator() returns boolean
language sql stable security definer set search_path = '' as $$
  select public.current_app_role() in ('moderator', 'admin') and public.mfa_satisfied()
$$;

-- What the app needs to know to ask for enrolment or for the code.
create function public.my_mfa_status() returns json
language sql stable security definer set search_path = '' as $$
  select json_build_object('required', public.mfa_required(), 'enrolled', public.mfa_enrolled(),
    'satisfied', public.mfa_satisfied())
$$;

revoke execute on function public.mfa_required(), public.mfa_enrolled(), public.mfa_satisfied(),
  public.my_mfa_status() from public, anon;
