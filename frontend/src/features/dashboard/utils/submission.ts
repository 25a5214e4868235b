import type { Appeal } from '../api/appeal';
import type { Graded } from '../api/submissions';

// A submission's life on the case page, as one state machine. Each state is what the server
// has recorded (or is recording) for the student's answer:
//   draft      the text is being written (nothing sent, or a fresh start)
//   checking   stored as a submission; the authorship check runs
//   blocked    the check refused it (ai_decision), no appeal yet
//   appealed   a human check was asked for (submission_appeals: pending, released, confirmed)
//   grading    the grader runs (after a passed check, or a moderator's release)
//   graded     scored (score, feedback_text, score_breakdown recorded)
//   failed     the check or the grading failed upstream; the text stays, to be sent again
//   revising   a graded answer is being improved; the next submission links to it
// Events not listed for a state leave it as it is (a late answer of an abandoned step, say).

export type Result = Graded & { previous: Graded | null };

export type SubmissionState =
  | { name: 'draft'; error: string | null }
  | { name: 'checking'; revising: Graded | null }
  | { name: 'blocked'; submissionId: string; requesting: boolean; error: string | null }
  | { name: 'appealed'; submissionId: string; appeal: Appeal; live: boolean }
  | { name: 'grading'; submissionId: string; previous: Graded | null; appeal: Appeal | null }
  | { name: 'graded'; result: Result }
  | { name: 'failed'; error: string; revising: Graded | null }
  | { name: 'revising'; from: Graded; error: string | null };

export type SubmissionEvent =
  | { type: 'invalid'; error: string }
  | { type: 'submit' }
  | { type: 'blocked'; submissionId: string }
  | { type: 'appealRequesting' }
  | { type: 'appealRequested'; appeal: Appeal }
  | { type: 'appealFailed'; error: string }
  | { type: 'appealLive'; live: boolean }
  | { type: 'appealChanged'; appeal: Appeal }
  | { type: 'gradeStarted'; submissionId: string; previous: Graded | null }
  | { type: 'graded'; result: Result }
  | { type: 'failed'; error: string }
  | { type: 'revise' }
  | { type: 'reset' }
  | { type: 'restored'; appeal: Appeal | null; failed: boolean };

export type StateName = SubmissionState['name'];
type EventType = SubmissionEvent['type'];
type Handler<S extends StateName> = (s: Extract<SubmissionState, { name: S }>, e: SubmissionEvent) => SubmissionState;
type Table = { [S in StateName]: Partial<Record<EventType, Handler<S>>> };

export const FAILED_BEFORE = 'Evaluarea anterioară a eșuat. Textul tău a fost păstrat: apasă „Evaluează Soluția” pentru a încerca din nou.';

const DRAFT: SubmissionState = { name: 'draft', error: null };
const pick = <T extends EventType>(e: SubmissionEvent, _type: T) => e as Extract<SubmissionEvent, { type: T }>;
// Sending the text: from a draft, after a failure, or while revising a graded answer.
const submit = (revising: Graded | null): SubmissionState => ({ name: 'checking', revising });
const graded: Handler<'grading'> = (_s, e) => ({ name: 'graded', result: pick(e, 'graded').result });

const table: Table = {
  draft: {
    invalid: (_s, e) => ({ name: 'draft', error: pick(e, 'invalid').error }),
    submit: () => submit(null),
    restored: (_s, e) => {
      const r = pick(e, 'restored');
      if (r.appeal) return { name: 'appealed', submissionId: r.appeal.submission_id, appeal: r.appeal, live: false };
      return r.failed ? { name: 'failed', error: FAILED_BEFORE, revising: null } : DRAFT;
    },
  },
  checking: {
    blocked: (_s, e) => ({ name: 'blocked', submissionId: pick(e, 'blocked').submissionId, requesting: false, error: null }),
    gradeStarted: (s, e) => ({ name: 'grading', submissionId: pick(e, 'gradeStarted').submissionId, previous: s.revising, appeal: null }),
    failed: (s, e) => ({ name: 'failed', error: pick(e, 'failed').error, revising: s.revising }),
  },
  blocked: {
    appealRequesting: (s) => ({ ...s, requesting: true, error: null }),
    appealRequested: (s, e) => ({ name: 'appealed', submissionId: s.submissionId, appeal: pick(e, 'appealRequested').appeal, live: false }),
    appealFailed: (s, e) => ({ ...s, requesting: false, error: pick(e, 'appealFailed').error }),
    // The student may rewrite it and send it again, as a new submission.
    submit: (s) => (s.requesting ? s : submit(null)),
    reset: () => DRAFT,
  },
  appealed: {
    appealLive: (s, e) => ({ ...s, live: pick(e, 'appealLive').live }),
    // A decision replaces a pending appeal; a decided one does not change again.
    appealChanged: (s, e) => {
      const a = pick(e, 'appealChanged').appeal;
      return s.appeal.status === 'pending' && a.id === s.appeal.id && a.status !== 'pending' ? { ...s, appeal: a } : s;
    },
    gradeStarted: (s, e) => (s.appeal.status === 'released' ? { name: 'grading', submissionId: pick(e, 'gradeStarted').submissionId, previous: null, appeal: s.appeal } : s),
    reset: (s) => (s.appeal.status === 'released' ? s : DRAFT),
    // A confirmed block leaves the text to be rewritten and sent again.
    submit: (s) => (s.appeal.status === 'confirmed' ? submit(null) : s),
  },
  grading: {
    graded,
    // A released appeal whose grading failed can be graded again from the appeal banner.
    failed: (s, e) =>
      s.appeal ? { name: 'appealed', submissionId: s.submissionId, appeal: s.appeal, live: false } : { name: 'failed', error: pick(e, 'failed').error, revising: s.previous },
  },
  graded: {
    revise: (s) => ({ name: 'revising', from: s.result, error: null }),
    reset: () => DRAFT,
    submit: () => submit(null),
  },
  failed: {
    invalid: (s, e) => ({ ...s, error: pick(e, 'invalid').error }),
    submit: (s) => submit(s.revising),
  },
  revising: {
    invalid: (s, e) => ({ ...s, error: pick(e, 'invalid').error }),
    submit: (s) => submit(s.from),
  },
};

export const initialSubmission: SubmissionState = DRAFT;

// The next state; an event the current state does not take leaves it unchanged.
export function transition(state: SubmissionState, event: SubmissionEvent): SubmissionState {
  const handler = (table[state.name] as Partial<Record<EventType, Handler<StateName>>>)[event.type];
  return handler ? handler(state as never, event) : state;
}

// Whether the event changes the state (the panel enables its buttons by it).
export const accepts = (state: SubmissionState, event: SubmissionEvent) => transition(state, event) !== state;

// While the server works on it, or while a human check decides it, the text cannot change.
export function textFrozen(s: SubmissionState): boolean {
  return s.name === 'checking' || s.name === 'grading' || (s.name === 'appealed' && s.appeal.status !== 'confirmed');
}

export const busy = (s: SubmissionState) => s.name === 'checking' || s.name === 'grading' || (s.name === 'blocked' && s.requesting);

// The message shown under the text, if any.
export function errorOf(s: SubmissionState): string | null {
  return s.name === 'draft' || s.name === 'blocked' || s.name === 'failed' || s.name === 'revising' ? s.error : null;
}

// The graded answer the next submission improves on, if any.
export function revisingOf(s: SubmissionState): Graded | null {
  return s.name === 'revising' ? s.from : s.name === 'checking' || s.name === 'failed' ? s.revising : s.name === 'grading' ? s.previous : null;
}
