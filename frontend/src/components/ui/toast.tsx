import { create } from 'zustand';

// Toasts as the spec sets them: 4 s, at most 3 visible, width 356, gap 14.
export const TOAST_DURATION = 4000;
export const TOAST_MAX = 3;

export type Toast = { id: number; title: string; description?: string; kind: 'success' | 'error' | 'info' };

type ToastState = { toasts: Toast[]; push: (t: Omit<Toast, 'id'>) => void; dismiss: (id: number) => void };

let nextId = 1;

export const useToasts = create<ToastState>((set, get) => ({
  toasts: [],
  push: (t) => {
    const id = nextId++;
    set({ toasts: [...get().toasts, { ...t, id }].slice(-TOAST_MAX) });
    setTimeout(() => get().dismiss(id), TOAST_DURATION);
  },
  dismiss: (id) => set({ toasts: get().toasts.filter((x) => x.id !== id) }),
}));

export const toast = {
  success: (title: string, description?: string) => useToasts.getState().push({ title, description, kind: 'success' }),
  error: (title: string, description?: string) => useToasts.getState().push({ title, description, kind: 'error' }),
};

export function Toaster() {
  const toasts = useToasts((s) => s.toasts);
  const dismiss = useToasts((s) => s.dismiss);
  return (
    <div className="toaster" role="region" aria-label="Notificări">
      {toasts.map((t) => (
        <div key={t.id} className={`toast toast-${t.kind}`} role="status" onClick={() => dismiss(t.id)}>
          <strong>{t.title}</strong>
          {t.description && <div>{t.description}</div>}
        </div>
      ))}
    </div>
  );
}
