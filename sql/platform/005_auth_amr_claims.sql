-- GoTrue's record of how each session was authenticated (the access token's amr claim):
-- one row per session and method, kept for the session's life, so a refreshed token
-- carries the factors of the original sign-in with their times, as GoTrue's does.
create table auth.mfa_amr_claims (
  session_id uuid not null references auth.sessions (id) on delete cascade,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  authentication_method text not null,
  id uuid primary key default gen_random_uuid(),
  constraint mfa_amr_claims_session_id_authentication_method_pkey unique (session_id, authentication_method)
);
comment on table auth.mfa_amr_claims is 'auth: stores authenticator method reference claims for multi factor authentication';
