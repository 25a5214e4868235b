-- name: UserGetByEmail :one
-- is_sso_user = false matches the partial unique index on lower(email) (else a full scan).
select * from auth.users where lower(email) = lower(sqlc.arg(email)) and is_sso_user = false and deleted_at is null;

-- name: UserGetByID :one
select * from auth.users where id = $1 and deleted_at is null;

-- name: UserCreate :one
insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
  confirmation_sent_at, raw_app_meta_data, raw_user_meta_data, created_at, updated_at, is_anonymous)
values ('00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated', 'authenticated', lower(sqlc.arg(email)),
  sqlc.arg(encrypted_password), sqlc.narg(email_confirmed_at), sqlc.narg(confirmation_sent_at),
  sqlc.arg(app_meta), sqlc.arg(user_meta), now(), now(), false)
returning *;

-- name: UserCreateAnonymous :one
-- An anonymous user (GoTrue's signInAnonymously): no e-mail, no password, no identity.
insert into auth.users (instance_id, id, aud, role, raw_app_meta_data, raw_user_meta_data, created_at, updated_at, is_anonymous)
values ('00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated', 'authenticated',
  '{}', sqlc.arg(user_meta), now(), now(), true)
returning *;

-- name: IdentityCreate :exec
insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
values (sqlc.arg(provider_id), sqlc.arg(user_id), sqlc.arg(identity_data), 'email', now(), now(), now());

-- name: IdentitiesByUser :many
select * from auth.identities where user_id = $1 order by created_at;

-- name: UserConfirmLink :one
-- A redeemed link confirms the address. When it was unconfirmed until now, the sessions
-- end and the password stays only if keep_password (a sign-up link, whose request set
-- it): a password chosen by whoever first typed the address proves nothing.
with b as (
  select id, email_confirmed_at is null as unconfirmed from auth.users where auth.users.id = sqlc.arg(user_id)::uuid and deleted_at is null for update
), s as (
  delete from auth.sessions where user_id in (select b.id from b where b.unconfirmed)
)
update auth.users u set email_confirmed_at = coalesce(u.email_confirmed_at, now()), confirmation_token = '',
  encrypted_password = case when b.unconfirmed and not sqlc.arg(keep_password)::bool then null else u.encrypted_password end,
  updated_at = now()
from b where u.id = b.id
returning u.*;

-- name: UserChangePassword :exec
-- A new password, as GoTrue sets it: every pending link (one-time tokens and their PKCE
-- flows) is void, and every session but keep_session (none for an admin) ends.
with u as (
  update auth.users set encrypted_password = sqlc.arg(encrypted_password), confirmation_token = '',
    confirmation_sent_at = null, recovery_token = '', recovery_sent_at = null, updated_at = now()
  where auth.users.id = sqlc.arg(user_id)::uuid
  returning auth.users.id
), t as (
  delete from auth.one_time_tokens where user_id in (select u.id from u)
), f as (
  delete from auth.flow_state where user_id in (select u.id from u)
), s as (
  delete from auth.sessions where user_id in (select u.id from u) and auth.sessions.id is distinct from sqlc.narg(keep_session)::uuid
)
select count(*) from u;

-- name: UserUpdateMetadata :execrows
-- Merges the keys into user_metadata unless the result would exceed max_bytes.
update auth.users set raw_user_meta_data = raw_user_meta_data || sqlc.arg(user_meta)::jsonb, updated_at = now()
where id = sqlc.arg(id) and octet_length((raw_user_meta_data || sqlc.arg(user_meta)::jsonb)::text) <= sqlc.arg(max_bytes)::int;

-- name: UserDeleteUnconfirmed :exec
-- A sign-up replaces an unconfirmed account of the same address: nobody has proven they
-- own it, so nothing of it (password, metadata, profile, flows) may outlive the new sign-up.
delete from auth.users where lower(email) = lower(sqlc.arg(email)) and is_sso_user = false and email_confirmed_at is null;

-- name: UserAdminUpdate :exec
update auth.users set
  raw_user_meta_data = coalesce(sqlc.narg(user_meta)::jsonb, raw_user_meta_data),
  raw_app_meta_data = coalesce(sqlc.narg(app_meta)::jsonb, raw_app_meta_data),
  encrypted_password = coalesce(sqlc.narg(encrypted_password), encrypted_password),
  email_confirmed_at = case when sqlc.arg(confirm)::bool then coalesce(email_confirmed_at, now()) else email_confirmed_at end,
  banned_until = sqlc.narg(banned_until),
  updated_at = now()
where id = sqlc.arg(id);

-- name: UserDelete :exec
delete from auth.users where id = $1;

-- name: UsersList :many
select * from auth.users where deleted_at is null order by created_at desc limit sqlc.arg(lim) offset sqlc.arg(off);

-- name: UsersCount :one
select count(*) from auth.users where deleted_at is null;

-- name: OneTimeTokenTake :one
delete from auth.one_time_tokens where token_hash = any(sqlc.arg(token_hashes)::text[]) and token_type = any(sqlc.arg(token_types)::text[])
returning user_id, token_type, token_hash, created_at;

-- name: LinkIssue :one
-- A mailed link in one statement, the same whether or not the address has an account:
-- the user (unconfirmed only, when asked), its one-time token of the type (replacing
-- the previous one), the token on the user row, and this request's PKCE flow, which
-- replaces every older flow of the methods that token type serves. Token and flow share
-- now(): /verify issues a code only for the flow created with its token.
with u as (
  select id, email from auth.users
  where lower(email) = lower(sqlc.arg(email)) and is_sso_user = false and deleted_at is null
    and (email_confirmed_at is null or not sqlc.arg(unconfirmed_only)::bool)
), t as (
  insert into auth.one_time_tokens (user_id, token_type, token_hash, relates_to, created_at, updated_at)
  select id, sqlc.arg(token_type)::text, sqlc.arg(token_hash)::text, email, now(), now() from u
  on conflict (user_id, token_type) do update set token_hash = excluded.token_hash,
    relates_to = excluded.relates_to, created_at = excluded.created_at, updated_at = excluded.updated_at
), r as (
  update auth.users x set
    confirmation_token = case when sqlc.arg(token_type)::text = 'confirmation_token' then sqlc.arg(token_hash)::text else x.confirmation_token end,
    confirmation_sent_at = case when sqlc.arg(token_type)::text = 'confirmation_token' then now() else x.confirmation_sent_at end,
    recovery_token = case when sqlc.arg(token_type)::text = 'recovery_token' then sqlc.arg(token_hash)::text else x.recovery_token end,
    recovery_sent_at = case when sqlc.arg(token_type)::text = 'recovery_token' then now() else x.recovery_sent_at end,
    updated_at = now()
  from u where x.id = u.id
), f as (
  delete from auth.flow_state fs using u where fs.user_id = u.id and fs.authentication_method = any(sqlc.arg(flow_methods)::text[])
), n as (
  insert into auth.flow_state (id, user_id, auth_code, code_challenge_method, code_challenge, provider_type, authentication_method, created_at, updated_at)
  select gen_random_uuid(), u.id, sqlc.arg(auth_code)::text, sqlc.arg(challenge_method)::text, sqlc.arg(challenge)::text, 'email', sqlc.arg(auth_method)::text, now(), now()
  from u where sqlc.arg(challenge)::text <> ''
)
select id, email from u;

-- name: SessionUser :one
select u.* from auth.users u join auth.sessions s on s.user_id = u.id
where s.id = sqlc.arg(session_id) and u.id = sqlc.arg(user_id) and u.deleted_at is null;

-- name: SessionDelete :exec
delete from auth.sessions where id = $1;

-- name: SessionsDeleteForUser :exec
delete from auth.sessions where user_id = $1;

-- name: SessionsDeleteOthers :exec
delete from auth.sessions where user_id = sqlc.arg(user_id) and id <> sqlc.arg(keep);

-- name: RefreshTokenCreate :exec
insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id)
values ('00000000-0000-0000-0000-000000000000', sqlc.arg(token), sqlc.arg(user_id)::text, false, now(), now(), sqlc.narg(parent), sqlc.arg(session_id));

-- name: RefreshTokenGetForUpdate :one
select * from auth.refresh_tokens where token = $1 for update;

-- name: RefreshTokenRevoke :exec
update auth.refresh_tokens set revoked = true, updated_at = now() where id = $1;

-- name: RefreshTokenActive :one
-- The session's current (newest unrevoked) refresh token.
select * from auth.refresh_tokens where session_id = $1 and not revoked order by id desc limit 1;

-- name: FlowStateByUser :one
-- The flow created by the same request as the redeemed token (same created_at).
select * from auth.flow_state where user_id = $1 and authentication_method = sqlc.arg(auth_method) and created_at = sqlc.arg(created_at)
order by created_at desc limit 1;

-- name: FlowStateIssue :exec
update auth.flow_state set auth_code_issued_at = now(), updated_at = now() where id = $1;

-- name: FlowStateTake :one
delete from auth.flow_state where auth_code = $1 returning *;

-- name: SessionUserIdentitiesBatch :many
-- GET /user: the users of live sessions, one row per identity (a user without identities
-- gives one row with null identity columns), for the requests that arrive while the
-- previous lookup is in flight, in one round trip. Each row carries the 1-based position of
-- the (session, user) pair it answers; a pair with no live session has no rows. Plain
-- columns, so the JSON is written once, by the server; the server orders the (few)
-- identities, which spares a sort node. factors_json is the user's MFA factors ('' for none).
select k.n::int as request_index,
  u.id, u.email, u.email_confirmed_at, u.invited_at, u.confirmed_at, u.confirmation_sent_at, u.recovery_sent_at,
  u.email_change, u.email_change_sent_at, u.last_sign_in_at, u.raw_app_meta_data, u.raw_user_meta_data,
  u.created_at, u.updated_at, u.is_anonymous,
  i.id as identity_id, i.provider_id as identity_provider_id, i.identity_data, i.provider as identity_provider,
  i.last_sign_in_at as identity_last_sign_in_at, i.created_at as identity_created_at,
  i.updated_at as identity_updated_at, i.email as identity_email,
  coalesce((select v.factors::text from casus_meta.user_factors v where v.user_id = u.id), '')::text as factors_json
from unnest(sqlc.arg(session_ids)::uuid[]) with ordinality as k (sid, n)
join auth.sessions s on s.id = k.sid and s.user_id = (sqlc.arg(user_ids)::uuid[])[k.n]
join auth.users u on u.id = s.user_id
left join auth.identities i on i.user_id = u.id
where u.deleted_at is null;

-- name: SessionStart :many
-- A sign-in in one atomic statement: the session, its first refresh token, how it was
-- authenticated (the amr claim) and the user's last_sign_in_at, returning the session id
-- with the user's identities, one row per identity (one row with null identity columns
-- when it has none), in the columns SessionUserIdentitiesBatch reads them, and the user's
-- MFA factors ('' for none).
with s as (
  insert into auth.sessions (id, user_id, created_at, updated_at, aal, user_agent, ip, refreshed_at)
  values (gen_random_uuid(), sqlc.arg(user_id), now(), now(), 'aal1', sqlc.arg(user_agent), sqlc.narg(ip)::inet, now())
  returning id, user_id
), t as (
  insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, session_id)
  select '00000000-0000-0000-0000-000000000000', sqlc.arg(token), s.user_id::text, false, now(), now(), s.id from s
), a as (
  insert into auth.mfa_amr_claims (session_id, created_at, updated_at, authentication_method)
  select s.id, now(), now(), sqlc.arg(method) from s
), u as (
  update auth.users set last_sign_in_at = now(), updated_at = now() where id = (select user_id from s)
  returning last_sign_in_at, updated_at
)
select s.id, (select last_sign_in_at from u) as last_sign_in_at, (select updated_at from u)::timestamptz as updated_at,
  i.id as identity_id, i.provider_id as identity_provider_id, i.identity_data, i.provider as identity_provider,
  i.last_sign_in_at as identity_last_sign_in_at, i.created_at as identity_created_at,
  i.updated_at as identity_updated_at, i.email as identity_email,
  coalesce((select v.factors::text from casus_meta.user_factors v where v.user_id = s.user_id), '')::text as factors_json
from s left join auth.identities i on i.user_id = s.user_id;

-- name: SessionAMR :many
-- The session's authentication methods for the amr claim, the most recent first (GoTrue).
select authentication_method, updated_at from auth.mfa_amr_claims where session_id = $1
order by updated_at desc, authentication_method;
