-- The study app is default-deny: its migrations grant the API roles exactly what a policy
-- needs, so the platform's Supabase-style default privileges (platform 006) are revoked for
-- objects created from here on. 001 does the same before creating any table; this copy is
-- for databases whose app schema predates the platform/app split (their 001 ran before the
-- defaults existed). Tables an operator adds to public by hand then need explicit grants.
alter default privileges in schema public revoke all on tables from anon, authenticated, service_role;
alter default privileges in schema public revoke all on sequences from anon, authenticated, service_role;
