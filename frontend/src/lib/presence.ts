// Presence keys are visible to everyone on a channel, anonymous visitors included, so they
// must not be user ids. A key is a hash of a random secret kept in this browser, the user
// and the case: it names nobody, differs from case to case (no pseudonym to follow), and
// is the same in every tab of this browser, so a student's own tabs are not counted as
// colleagues.
const SECRET = 'casus.presence-secret';

function randomHex(bytes = 16): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, '0')).join('');
}

export async function presenceKey(userId: string, topic: string): Promise<string> {
  // Without WebCrypto (a page served over plain http to a non-local address) each tab
  // gets a random key: still opaque, only the own-tabs exclusion is lost.
  if (!crypto.subtle) return randomHex();
  let secret = localStorage.getItem(SECRET);
  if (!secret) {
    secret = randomHex();
    localStorage.setItem(SECRET, secret);
  }
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${secret}\n${userId}\n${topic}`));
  return Array.from(new Uint8Array(digest).slice(0, 16), (b) => b.toString(16).padStart(2, '0')).join('');
}
