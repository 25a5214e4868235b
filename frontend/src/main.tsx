import { startTransition, StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { loadConfig } from './lib/config';
import { initSupabase } from './lib/supabase';
import { holdUntilFirstPaint, releaseAfterFirstPaint } from './lib/firstPaint';
import './styles.css';

const root = createRoot(document.getElementById('root')!);

// How long the first render waits for the stored session (supabase-js may be refreshing an
// expired token over the network): past that, the pages show their spinner meanwhile.
const SESSION_WAIT_MS = 200;

// A returning student's first paint is the page itself (issue 31): the session and the
// stored profile are in the store and the route's chunk is there before the first render,
// and data requests wait for that paint (lib/firstPaint).
holdUntilFirstPaint();
loadConfig()
  .then(async (cfg) => {
    initSupabase(cfg);
    const { App, routeReady, startAuth } = await import('./app/App');
    await Promise.race([startAuth().catch(() => undefined), new Promise((r) => setTimeout(r, SESSION_WAIT_MS))]);
    await routeReady();
    // A transition: React renders the page in slices of a few ms, not in one long task.
    startTransition(() =>
      root.render(
        <StrictMode>
          <App />
        </StrictMode>,
      ),
    );
  })
  .catch((err: Error) => root.render(<p className="error">Configurația aplicației nu a putut fi încărcată: {err.message}</p>))
  .finally(() => releaseAfterFirstPaint());
