// Process signals of the solution editor (issue 15 §3): how much of the text was typed and
// how much pasted, the number of paste events and the largest one, and the time from the
// first keystroke to submission. Only counts are kept: never a keystroke or a piece of text.
// They are saved with the submission and shown to moderators only (RLS).

export type ProcessSignals = {
  chars_typed: number;
  chars_pasted: number;
  paste_events: number;
  largest_paste: number;
  ms_to_submit: number | null;
};

// The number of characters an edit inserted: what lies between the common prefix and the
// common suffix of the old and the new text (a replaced selection counts what replaced it).
export function insertedLength(prev: string, next: string): number {
  let start = 0;
  const max = Math.min(prev.length, next.length);
  while (start < max && prev.charCodeAt(start) === next.charCodeAt(start)) start++;
  let endPrev = prev.length;
  let endNext = next.length;
  while (endPrev > start && endNext > start && prev.charCodeAt(endPrev - 1) === next.charCodeAt(endNext - 1)) {
    endPrev--;
    endNext--;
  }
  return endNext - start;
}

export class SignalRecorder {
  private typed = 0;
  private pasted = 0;
  private pastes = 0;
  private largest = 0;
  private firstAt: number | null = null;
  private pastePending = false;

  constructor(private now: () => number = () => Date.now()) {}

  // A paste (or a drop) is about to change the text: the next change is counted as pasted.
  paste() {
    this.pastePending = true;
  }

  // The text changed from prev to next.
  change(prev: string, next: string) {
    const n = insertedLength(prev, next);
    if (this.firstAt == null && prev !== next) this.firstAt = this.now();
    if (this.pastePending) {
      this.pastePending = false;
      if (n > 0) {
        this.pastes++;
        this.pasted += n;
        this.largest = Math.max(this.largest, n);
      }
      return;
    }
    this.typed += n;
  }

  snapshot(): ProcessSignals {
    return {
      chars_typed: this.typed,
      chars_pasted: this.pasted,
      paste_events: this.pastes,
      largest_paste: this.largest,
      ms_to_submit: this.firstAt == null ? null : Math.max(0, Math.round(this.now() - this.firstAt)),
    };
  }

  reset() {
    this.typed = this.pasted = this.pastes = this.largest = 0;
    this.firstAt = null;
    this.pastePending = false;
  }
}
