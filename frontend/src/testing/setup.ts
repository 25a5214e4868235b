// Shared setup for unit tests (jsdom): each test starts from empty stores.
import { afterEach } from 'vitest';
import { resetAuthStore } from '../lib/auth/store';
import { useToasts } from '../components/ui/toast';

const toastsAtStart = useToasts.getState();

afterEach(() => {
  resetAuthStore();
  useToasts.setState(toastsAtStart, true);
});
