import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { toast, Toaster, TOAST_DURATION, useToasts } from './toast';
import { useAuth } from '../../lib/auth/store';

afterEach(() => {
  useToasts.setState({ toasts: [] });
  vi.useRealTimers();
});

describe('toasts', () => {
  test('at most 3 visible, newest kept, gone after 4 s', () => {
    vi.useFakeTimers();
    render(<Toaster />);
    act(() => {
      ['unu', 'doi', 'trei', 'patru'].forEach((t) => toast.success(t));
    });
    expect(screen.queryByText('unu')).toBeNull();
    expect(screen.getAllByRole('status')).toHaveLength(3);
    act(() => vi.advanceTimersByTime(TOAST_DURATION + 1));
    expect(screen.queryAllByRole('status')).toHaveLength(0);
  });
});

test('useAuth outside its provider says so', () => {
  function Probe() {
    useAuth();
    return null;
  }
  vi.spyOn(console, 'error').mockImplementation(() => {});
  expect(() => render(<Probe />)).toThrow('useAuth must be used within an AuthProvider');
});
