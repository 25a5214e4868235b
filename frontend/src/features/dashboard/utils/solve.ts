// "Rezolvă speța!" opened from elsewhere on the dashboard (the tutor, once its rounds are
// used): the case view opens its solution panel and puts the cursor in it; on a phone the
// dashboard closes the bottom sheet that covers it.
export const SOLVE_EVENT = 'casus:solve';

export function openSolution(): void {
  window.dispatchEvent(new Event(SOLVE_EVENT));
}
