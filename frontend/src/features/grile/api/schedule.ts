// Spaced repetition with ts-fsrs. The browser computes a question's next card for both
// outcomes before it knows the answer's score (Again for a wrong answer, Good for a right
// one); grile_answer keeps the one the server's scoring picks (the browser's clock dates
// the review; the server refuses one more than 36 hours off its own). Day-based scheduling (no same-day learning steps): a grilă answered
// wrongly comes back the next day, one answered rightly a few days later, then further apart.
import { createEmptyCard, fsrs, generatorParameters, Rating, type Card } from 'ts-fsrs';
import type { StoredCard } from './grile';

const scheduler = fsrs(generatorParameters({ enable_short_term: false, enable_fuzz: false }));

export type CardJSON = Omit<StoredCard, 'last_review'> & { last_review: string };

function toCard(c: StoredCard | null, now: Date): Card {
  if (!c) return createEmptyCard(now);
  return { ...c, due: new Date(c.due), last_review: c.last_review ? new Date(c.last_review) : undefined, state: c.state };
}

function toJSON(c: Card): CardJSON {
  return {
    due: c.due.toISOString(), stability: c.stability, difficulty: c.difficulty, elapsed_days: c.elapsed_days,
    scheduled_days: c.scheduled_days, learning_steps: c.learning_steps, reps: c.reps, lapses: c.lapses, state: c.state,
    last_review: (c.last_review ?? new Date()).toISOString(),
  };
}

// The card after a wrong and after a right answer given now.
export function nextCards(card: StoredCard | null, now: Date): { ifWrong: CardJSON; ifRight: CardJSON } {
  const preview = scheduler.repeat(toCard(card, now), now);
  return { ifWrong: toJSON(preview[Rating.Again].card), ifRight: toJSON(preview[Rating.Good].card) };
}

// "în N zile" for the next review.
export function nextReviewLabel(dueISO: string, now: Date): string {
  const days = Math.max(1, Math.round((new Date(dueISO).getTime() - now.getTime()) / 86_400_000));
  return days === 1 ? 'mâine' : `peste ${days} zile`;
}
