// A mailed link (confirmation, magic link, reset) that GoTrue refuses comes back to the
// site with the reason in the fragment: #error=access_denied&error_code=otp_expired&…
// It is read once when the app starts (before a redirect drops the fragment), then taken
// off the address bar; the sign-in page shows it in words (walkthrough 3, bug 16).

export const LINK_EXPIRED = 'Linkul din email a expirat sau a fost deja folosit. Dacă ți-ai confirmat contul, conectează-te; altfel cere un link nou.';
export const LINK_FAILED = 'Linkul din email nu a putut fi folosit. Te rog încearcă din nou.';

export function linkErrorMessage(hash: string): string | null {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  if (!p.get('error') && !p.get('error_code')) return null;
  return p.get('error_code') === 'otp_expired' ? LINK_EXPIRED : LINK_FAILED;
}

let pending: string | null = typeof window === 'undefined' ? null : linkErrorMessage(window.location.hash);
if (pending) window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);

// The message of the refused link this page was opened with; forgotten once the sign-in
// page that showed it goes away.
export const linkError = (): string | null => pending;
export function forgetLinkError() {
  pending = null;
}
