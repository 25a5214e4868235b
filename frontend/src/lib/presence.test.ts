import { describe, expect, test } from 'vitest';
import { presenceKey } from './presence';

describe('presenceKey', () => {
  const user = '4db3f244-488f-42cc-ab5c-e33bdba21983';
  test('names nobody, stays the same in this browser, differs by case and by user', async () => {
    const k = await presenceKey(user, 'case:1');
    expect(k).toMatch(/^[0-9a-f]{32}$/);
    expect(k).not.toContain(user.slice(0, 8));
    expect(await presenceKey(user, 'case:1')).toBe(k);
    expect(await presenceKey(user, 'case:2')).not.toBe(k);
    expect(await presenceKey('79a98705-d318-4439-90e4-fc1d2b70b65b', 'case:1')).not.toBe(k);
  });
  test('another browser (another secret) gets another key', async () => {
    const k = await presenceKey(user, 'case:1');
    localStorage.clear();
    expect(await presenceKey(user, 'case:1')).not.toBe(k);
  });
});
