-- Multi-factor authentication (TOTP), in GoTrue's tables: enrolled factors and the
-- challenges issued against them. Columns and names follow GoTrue's, so factors move with
-- the users between Casus and a Supabase project.
create type auth.factor_type as enum ('totp', 'webauthn', 'phone');
create type auth.factor_status as enum ('unverified', 'verified');

create table auth.mfa_factors (
  id uuid primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  friendly_name text,
  factor_type auth.factor_type not null,
  status auth.factor_status not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  -- The TOTP shared secret. The auth schema is not exposed by the data API and the API
  -- roles hold no privilege on this table (revoked below): only the server reads it.
  secret text,
  phone text,
  last_challenged_at timestamptz unique
);
create index factor_id_created_at_idx on auth.mfa_factors (user_id, created_at);
create unique index mfa_factors_user_friendly_name_unique on auth.mfa_factors (friendly_name, user_id)
  where trim(friendly_name) <> '';
comment on table auth.mfa_factors is 'auth: stores metadata about factors';

create table auth.mfa_challenges (
  id uuid primary key,
  factor_id uuid not null references auth.mfa_factors (id) on delete cascade,
  created_at timestamptz not null,
  verified_at timestamptz,
  ip_address inet not null,
  otp_code text
);
create index mfa_challenge_created_at_idx on auth.mfa_challenges (created_at desc);
create index mfa_challenges_factor_id_idx on auth.mfa_challenges (factor_id);
comment on table auth.mfa_challenges is 'auth: stores metadata about challenge requests made';

-- The session's factor (GoTrue's sessions.factor_id) is dropped with it.
create index if not exists sessions_factor_id_idx on auth.sessions (factor_id);

revoke all on auth.mfa_factors, auth.mfa_challenges from public, anon, authenticated, service_role;

-- The user object's "factors" as GoTrue writes them (its Factor JSON, keys in its order,
-- friendly_name left out when empty), null for a user without factors. One definition for
-- every answer that carries the user (sign-in, refresh, GET /user, verify).
create function casus_meta.user_factors_json(uid uuid) returns json
language sql stable set search_path = '' as $$
  select json_agg(case when coalesce(f.friendly_name, '') = '' then
      json_build_object('id', f.id, 'created_at', f.created_at, 'updated_at', f.updated_at, 'status', f.status,
        'factor_type', f.factor_type, 'phone', coalesce(f.phone, ''), 'last_challenged_at', f.last_challenged_at)
    else
      json_build_object('id', f.id, 'created_at', f.created_at, 'updated_at', f.updated_at, 'status', f.status,
        'friendly_name', f.friendly_name, 'factor_type', f.factor_type, 'phone', coalesce(f.phone, ''),
        'last_challenged_at', f.last_challenged_at)
    end order by f.created_at, f.id)
  from auth.mfa_factors f where f.user_id = uid
$$;
revoke execute on function casus_meta.user_factors_json(uuid) from public;
