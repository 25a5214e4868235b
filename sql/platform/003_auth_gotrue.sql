-- Auth service extras on top of the GoTrue-shaped schema of 002.

-- A mailed link finds the PKCE flow it belongs to by user and method (FlowStateByUser).
create index if not exists flow_state_user_method_idx
  on auth.flow_state (user_id, authentication_method, created_at desc);

-- Refresh tokens are looked up by their parent when a rotated token comes back.
-- (refresh_tokens_parent_idx exists in 002; the session's current token uses
-- refresh_tokens_session_id_revoked_idx.)
