-- MFA (TOTP) factors and challenges, GoTrue's /factors endpoints.

-- name: FactorsDeleteExpiredUnverified :exec
-- An unverified factor that was never challenged expires (GoTrue's factor expiry).
delete from auth.mfa_factors f where f.user_id = sqlc.arg(user_id) and f.status <> 'verified'
  and not exists (select 1 from auth.mfa_challenges c where c.factor_id = f.id)
  and f.created_at + make_interval(secs => sqlc.arg(expiry_seconds)::float8) < now();

-- name: FactorsByUser :many
select id, user_id, coalesce(friendly_name, '')::text as friendly_name, factor_type::text as factor_type,
  status::text as status, created_at, updated_at, last_challenged_at
from auth.mfa_factors where user_id = $1 order by created_at;

-- name: FactorsJSON :one
-- The user object's "factors" (GoTrue's Factor JSON), '' when there are none.
select coalesce((select v.factors::text from casus_meta.user_factors v where v.user_id = sqlc.arg(user_id)::uuid), '')::text as factors;

-- name: FactorCreate :exec
insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, secret)
values (sqlc.arg(id), sqlc.arg(user_id), sqlc.arg(friendly_name), sqlc.arg(factor_type)::text::auth.factor_type,
  'unverified', now(), now(), sqlc.narg(secret));

-- name: FactorOwned :one
select id, user_id, coalesce(friendly_name, '')::text as friendly_name, factor_type::text as factor_type,
  status::text as status, secret, created_at
from auth.mfa_factors where id = sqlc.arg(id) and user_id = sqlc.arg(user_id);

-- name: ChallengeCreate :one
with f as (
  update auth.mfa_factors set last_challenged_at = clock_timestamp(), updated_at = now()
  where auth.mfa_factors.id = sqlc.arg(factor_id)::uuid
  returning auth.mfa_factors.id
)
insert into auth.mfa_challenges (id, factor_id, created_at, ip_address)
select gen_random_uuid(), f.id, now(), sqlc.arg(ip)::inet from f
returning id, created_at;

-- name: ChallengeForUpdate :one
select id, factor_id, created_at, verified_at, host(ip_address)::text as ip
from auth.mfa_challenges where id = sqlc.arg(id) and factor_id = sqlc.arg(factor_id) for update;

-- name: ChallengeDelete :exec
delete from auth.mfa_challenges where id = $1;

-- name: ChallengeVerify :exec
update auth.mfa_challenges set verified_at = now() where id = $1;

-- name: FactorMarkVerified :exec
update auth.mfa_factors set status = 'verified', updated_at = now() where id = $1 and status = 'unverified';

-- name: SessionAAL :one
select coalesce(aal, 'aal1')::text from auth.sessions where id = $1;

-- name: SessionAddAMR :exec
-- Records a factor on the session (GoTrue's AddClaimToSession): a repeated one refreshes its time.
insert into auth.mfa_amr_claims (session_id, created_at, updated_at, authentication_method)
values (sqlc.arg(session_id), now(), now(), sqlc.arg(method))
on conflict (session_id, authentication_method) do update set updated_at = excluded.updated_at;

-- name: SessionSetAAL :exec
update auth.sessions set aal = sqlc.arg(aal)::text, factor_id = sqlc.narg(factor_id), updated_at = now() where id = sqlc.arg(id);

-- name: SessionsDeleteBelowAAL2 :exec
-- A newly verified factor signs out every session of the user that did not pass it.
delete from auth.sessions where user_id = $1 and coalesce(aal, 'aal1') < 'aal2';

-- name: FactorsDeleteUnverified :exec
-- A verified factor drops the user's unverified factors of its type (GoTrue).
delete from auth.mfa_factors where user_id = sqlc.arg(user_id) and status = 'unverified'
  and factor_type = sqlc.arg(factor_type)::text::auth.factor_type;

-- name: FactorDelete :exec
-- Unenrol: the factor goes and the sessions it raised to aal2 fall back to aal1.
with d as (
  delete from auth.mfa_factors where auth.mfa_factors.id = sqlc.arg(id)::uuid returning auth.mfa_factors.id
), a as (
  delete from auth.mfa_amr_claims c using auth.sessions s
  where c.session_id = s.id and s.factor_id = sqlc.arg(id)::uuid and c.authentication_method in ('totp', 'mfa/webauthn')
)
update auth.sessions set aal = 'aal1', factor_id = null, updated_at = now() where auth.sessions.factor_id = sqlc.arg(id)::uuid;

-- name: RefreshTokensDeleteForSession :exec
-- A verified second factor voids every refresh token the session had (GoTrue moves its
-- counter past them): a token from before the code cannot carry the aal2 session on.
delete from auth.refresh_tokens where session_id = $1;
