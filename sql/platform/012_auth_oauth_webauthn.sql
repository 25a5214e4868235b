-- GoTrue's OAuth 2.1 server clients (the admin API /admin/oauth/clients) and the WebAuthn
-- columns of its MFA tables, with GoTrue's names and types, so clients and factors move
-- with the users between Casus and a Supabase project.
create type auth.oauth_registration_type as enum ('dynamic', 'manual');
create type auth.oauth_client_type as enum ('public', 'confidential');

create table auth.oauth_clients (
  id uuid primary key, -- the public client_id
  client_secret_hash text, -- sha-256 of the secret, base64url; null for a public client
  registration_type auth.oauth_registration_type not null,
  redirect_uris text not null, -- comma-separated, as GoTrue stores them
  grant_types text not null,
  client_name text check (char_length(client_name) <= 1024),
  client_uri text check (char_length(client_uri) <= 2048),
  logo_uri text check (char_length(logo_uri) <= 2048),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  client_type auth.oauth_client_type not null default 'confidential',
  token_endpoint_auth_method text not null check (token_endpoint_auth_method in ('client_secret_basic', 'client_secret_post', 'none'))
);
create index oauth_clients_deleted_at_idx on auth.oauth_clients (deleted_at);

-- WebAuthn second factors: the credential registered by the authenticator, and the
-- session data a challenge is verified against.
alter table auth.mfa_factors add column web_authn_credential jsonb, add column web_authn_aaguid uuid,
  add column last_webauthn_challenge_data jsonb;
alter table auth.mfa_challenges add column web_authn_session_data jsonb;

revoke all on auth.oauth_clients from public, anon, authenticated, service_role;
