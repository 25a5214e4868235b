import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { DISMISS_MS, NETWORK_ERROR, readableError, SERVER_ERROR, SWIPE_THRESHOLD, toast, Toaster, TOAST_DURATION, useToasts } from './toast';
import { useAuth } from '../../lib/auth/store';

afterEach(() => {
  cleanup();
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
    // At 4 s each starts its 200 ms exit, then it is gone.
    act(() => vi.advanceTimersByTime(TOAST_DURATION + 1));
    expect(document.querySelectorAll('.toast.leaving')).toHaveLength(3);
    act(() => vi.advanceTimersByTime(DISMISS_MS));
    expect(screen.queryAllByRole('status')).toHaveLength(0);
  });

  test('the close button dismisses at once, with the exit animation', () => {
    vi.useFakeTimers();
    render(<Toaster />);
    act(() => toast.success('salvat'));
    fireEvent.click(screen.getByRole('button', { name: 'Închide notificarea' }));
    expect(screen.getByRole('status').className).toContain('leaving');
    act(() => vi.advanceTimersByTime(DISMISS_MS));
    expect(screen.queryByText('salvat')).toBeNull();
  });

  test('a swipe past 45 px dismisses, a shorter one snaps back', () => {
    vi.useFakeTimers();
    render(<Toaster />);
    act(() => toast.success('glisează'));
    const card = screen.getByRole('status');
    const swipe = (dx: number) => {
      fireEvent.pointerDown(card, { clientX: 100, pointerId: 1 });
      fireEvent.pointerMove(card, { clientX: 100 + dx, pointerId: 1 });
      fireEvent.pointerUp(card, { clientX: 100 + dx, pointerId: 1 });
    };
    swipe(SWIPE_THRESHOLD - 5);
    expect(card.className).not.toContain('leaving');
    expect(card.style.transform).toBe('');
    swipe(SWIPE_THRESHOLD + 1);
    expect(card.className).toContain('leaving');
  });

  test('errors read as Romanian sentences, not raw JSON or TypeErrors', () => {
    expect(readableError('TypeError: Failed to fetch')).toBe(NETWORK_ERROR);
    expect(readableError('Failed to fetch')).toBe(NETWORK_ERROR);
    expect(readableError('{"type":"error","error":{"type":"api_error","message":"Evaluarea nu a putut fi finalizată. Încearcă din nou."}}')).toBe('Evaluarea nu a putut fi finalizată. Încearcă din nou.');
    expect(readableError('{"code":"XX000","details":null}')).toBe(SERVER_ERROR);
    expect(readableError('<html><body>502 Bad Gateway</body></html>')).toBe(SERVER_ERROR);
    expect(readableError('Rolul nu a putut fi schimbat.')).toBe('Rolul nu a putut fi schimbat.');
    toast.error('Eroare la evaluare', 'TypeError: Failed to fetch');
    expect(useToasts.getState().toasts.at(-1)!.description).toBe(NETWORK_ERROR);
  });
});

// jsdom has no PointerEvent: MouseEvent carries clientX, enough for the swipe.
beforeAll(() => {
  if (!('PointerEvent' in window)) (window as unknown as { PointerEvent: typeof MouseEvent }).PointerEvent = class extends MouseEvent {
    pointerId: number;
    constructor(type: string, init: PointerEventInit = {}) {
      super(type, init);
      this.pointerId = init.pointerId ?? 0;
    }
  };
});

test('useAuth outside its provider says so', () => {
  function Probe() {
    useAuth();
    return null;
  }
  vi.spyOn(console, 'error').mockImplementation(() => {});
  expect(() => render(<Probe />)).toThrow('useAuth must be used within an AuthProvider');
});
