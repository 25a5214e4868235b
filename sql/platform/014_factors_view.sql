-- The user object's "factors" (009) as a view. The function's body has a FROM and an
-- aggregate, which PostgreSQL never inlines: it planned the body again at every call,
-- once per sign-in, refresh and GET /user (a third of a sign-in's SQL time). A view is
-- planned into the statement that reads it, once per prepared statement; the filter on
-- user_id reaches the index below the grouping.
create view casus_meta.user_factors as
  select f.user_id, json_agg(case when coalesce(f.friendly_name, '') = '' then
      json_build_object('id', f.id, 'created_at', f.created_at, 'updated_at', f.updated_at, 'status', f.status,
        'factor_type', f.factor_type, 'phone', coalesce(f.phone, ''), 'last_challenged_at', f.last_challenged_at)
    else
      json_build_object('id', f.id, 'created_at', f.created_at, 'updated_at', f.updated_at, 'status', f.status,
        'friendly_name', f.friendly_name, 'factor_type', f.factor_type, 'phone', coalesce(f.phone, ''),
        'last_challenged_at', f.last_challenged_at)
    end order by f.created_at, f.id) as factors
  from auth.mfa_factors f group by f.user_id;
revoke all on casus_meta.user_factors from public, anon, authenticated, service_role;

-- One definition: the function (kept for the admin endpoints) reads the view.
create or replace function casus_meta.user_factors_json(uid uuid) returns json
language sql stable set search_path = '' as $$
  select v.factors from casus_meta.user_factors v where v.user_id = uid
$$;
revoke execute on function casus_meta.user_factors_json(uuid) from public;
