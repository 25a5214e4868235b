import { expect, test } from 'vitest';
import { initSupabase } from './supabase';
import { listOwnFeedback } from './feedback';

test('listing own feedback without a session fails with the spec message', async () => {
  // Nothing listens on this port: the check must fail before any request.
  initSupabase({ supabaseUrl: 'http://127.0.0.1:9', supabaseAnonKey: 'anon', aiEnabled: false });
  await expect(listOwnFeedback()).rejects.toThrow('Not authenticated');
});
