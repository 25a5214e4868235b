import { useRef, useState, type PointerEvent as ReactPointerEvent } from 'react';
import { create } from 'zustand';

// Toasts as the spec sets them: 4 s, at most 3 visible, width 356, gap 14, swipe threshold
// 45 px, dismiss animation 200 ms. They sit at the top centre, over the header's empty
// middle, where they hide no input (the chat's is at the bottom right).
export const TOAST_DURATION = 4000;
export const TOAST_MAX = 3;
export const SWIPE_THRESHOLD = 45;
export const DISMISS_MS = 200;

export type Toast = { id: number; title: string; description?: string; kind: 'success' | 'error' | 'info'; leaving?: boolean };

type ToastState = { toasts: Toast[]; push: (t: Omit<Toast, 'id'>) => void; dismiss: (id: number) => void };

let nextId = 1;

export const useToasts = create<ToastState>((set, get) => ({
  toasts: [],
  push: (t) => {
    const id = nextId++;
    set({ toasts: [...get().toasts, { ...t, id }].slice(-TOAST_MAX) });
    setTimeout(() => get().dismiss(id), TOAST_DURATION);
  },
  // Dismissing plays the 200 ms exit, then removes the toast.
  dismiss: (id) => {
    const t = get().toasts.find((x) => x.id === id);
    if (!t || t.leaving) return;
    set({ toasts: get().toasts.map((x) => (x.id === id ? { ...x, leaving: true } : x)) });
    setTimeout(() => set({ toasts: get().toasts.filter((x) => x.id !== id) }), DISMISS_MS);
  },
}));

export const NETWORK_ERROR = 'Nu ne-am putut conecta la server. Verifică conexiunea.';
export const SERVER_ERROR = 'Serverul nu a putut răspunde acum. Încearcă din nou.';

// What a student reads instead of a raw error: the browser's network failures become one
// Romanian sentence; a JSON error body gives its message; anything else long or technical
// becomes the generic server sentence.
export function readableError(text: string | undefined): string | undefined {
  if (!text) return text;
  const t = text.trim();
  if (/failed to fetch|networkerror|load failed|network request failed|err_connection|econnrefused/i.test(t)) return NETWORK_ERROR;
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      const body = JSON.parse(t) as { message?: unknown; msg?: unknown; error?: { message?: unknown } | string; error_description?: unknown };
      const m = (typeof body.error === 'object' && body.error?.message) || body.message || body.msg || body.error_description || (typeof body.error === 'string' && body.error);
      if (typeof m === 'string' && m.trim()) return readableError(m);
    } catch {
      // not JSON after all
    }
    return SERVER_ERROR;
  }
  if (/^(TypeError|SyntaxError|Error):|<html|\bstatus (5\d\d)\b|internal server error/i.test(t)) return SERVER_ERROR;
  return t;
}

export const toast = {
  success: (title: string, description?: string) => useToasts.getState().push({ title, description, kind: 'success' }),
  error: (title: string, description?: string) => useToasts.getState().push({ title, description: readableError(description), kind: 'error' }),
};

export function Toaster() {
  const toasts = useToasts((s) => s.toasts);
  return (
    <div className="toaster" role="region" aria-label="Notificări">
      {toasts.map((t) => (
        <ToastCard key={t.id} t={t} />
      ))}
    </div>
  );
}

// One toast: a close button, and a horizontal swipe past the threshold dismisses it (a
// shorter one snaps back).
function ToastCard({ t }: { t: Toast }) {
  const dismiss = useToasts((s) => s.dismiss);
  const start = useRef<number | null>(null);
  const [dx, setDx] = useState(0);
  const end = () => {
    if (start.current === null) return;
    start.current = null;
    if (Math.abs(dx) >= SWIPE_THRESHOLD) dismiss(t.id);
    else setDx(0);
  };
  return (
    <div
      className={`toast toast-${t.kind}${t.leaving ? ' leaving' : ''}`}
      role="status"
      style={dx ? { transform: `translateX(${dx}px)`, transition: 'none' } : undefined}
      onPointerDown={(e: ReactPointerEvent) => {
        if ((e.target as HTMLElement).closest('button')) return;
        start.current = e.clientX;
        (e.currentTarget as HTMLElement).setPointerCapture?.(e.pointerId);
      }}
      onPointerMove={(e: ReactPointerEvent) => start.current !== null && setDx(e.clientX - start.current)}
      onPointerUp={end}
      onPointerCancel={() => {
        start.current = null;
        setDx(0);
      }}
    >
      <div className="toast-text">
        <strong>{t.title}</strong>
        {t.description && <div>{t.description}</div>}
      </div>
      <button type="button" className="toast-close" aria-label="Închide notificarea" onClick={() => dismiss(t.id)}>
        ×
      </button>
    </div>
  );
}
