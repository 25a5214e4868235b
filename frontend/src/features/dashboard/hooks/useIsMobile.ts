import { useEffect, useState } from 'react';

const MOBILE_QUERY = '(max-width: 900px)';

export const mobileNow = () => typeof window.matchMedia === 'function' && window.matchMedia(MOBILE_QUERY).matches;

// True on small screens: the sidebar becomes a drawer and the right panel bottom sheets.
export function useIsMobile(): boolean {
  const [m, setM] = useState(mobileNow);
  useEffect(() => {
    if (typeof window.matchMedia !== 'function') return;
    const mq = window.matchMedia(MOBILE_QUERY);
    const f = () => setM(mq.matches);
    mq.addEventListener('change', f);
    return () => mq.removeEventListener('change', f);
  }, []);
  return m;
}
