// supabase-js creates its realtime client eagerly and needs a global WebSocket; Node 20
// has none, so the contract tests use the ws package (Node 22+ would not need this).
import WebSocket from 'ws';

if (!('WebSocket' in globalThis)) {
  (globalThis as { WebSocket?: unknown }).WebSocket = WebSocket;
}
