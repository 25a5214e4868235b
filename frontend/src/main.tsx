import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { loadConfig } from './lib/config';
import { initSupabase } from './lib/supabase';
import './styles.css';

const root = createRoot(document.getElementById('root')!);

loadConfig()
  .then(async (cfg) => {
    initSupabase(cfg);
    const { App } = await import('./app/App');
    root.render(
      <StrictMode>
        <App />
      </StrictMode>,
    );
  })
  .catch((err: Error) => root.render(<p className="error">Configurația aplicației nu a putut fi încărcată: {err.message}</p>));
