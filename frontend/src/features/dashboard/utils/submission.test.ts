import { describe, expect, test } from 'vitest';
import type { Appeal } from '../api/appeal';
import type { Graded } from '../api/submissions';
import { accepts, errorOf, FAILED_BEFORE, initialSubmission, revisingOf, textFrozen, transition, type SubmissionEvent, type SubmissionState } from './submission';

const graded: Graded = { id: 'g1', text: 'T', score: '70/100', value: 70, feedback: '', criteria: [], level: 3 };
const appeal = (status: Appeal['status']): Appeal => ({ id: 'a1', submission_id: 's1', status, decision_reason: status === 'confirmed' ? 'copiat' : null });
const run = (events: SubmissionEvent[], from: SubmissionState = initialSubmission) => events.reduce(transition, from);

describe('a submission\'s life', () => {
  test('draft → checking → grading → graded', () => {
    const s = run([{ type: 'submit' }, { type: 'gradeStarted', submissionId: 's1', previous: null }]);
    expect(s).toMatchObject({ name: 'grading', submissionId: 's1' });
    expect(textFrozen(s)).toBe(true);
    const done = transition(s, { type: 'graded', result: { ...graded, previous: null } });
    expect(done.name).toBe('graded');
    expect(textFrozen(done)).toBe(false);
  });

  test('checking → blocked → appealed (pending, live) → released → grading → graded', () => {
    let s = run([{ type: 'submit' }, { type: 'blocked', submissionId: 's1' }]);
    expect(s).toMatchObject({ name: 'blocked', requesting: false });
    s = run([{ type: 'appealRequesting' }, { type: 'appealRequested', appeal: appeal('pending') }, { type: 'appealLive', live: true }], s);
    expect(s).toMatchObject({ name: 'appealed', live: true, appeal: { status: 'pending' } });
    expect(textFrozen(s)).toBe(true);
    // While pending, the student cannot send it again nor grade it.
    expect(accepts(s, { type: 'submit' })).toBe(false);
    expect(accepts(s, { type: 'gradeStarted', submissionId: 's1', previous: null })).toBe(false);
    s = transition(s, { type: 'appealChanged', appeal: appeal('released') });
    expect(s).toMatchObject({ name: 'appealed', appeal: { status: 'released' } });
    // A stale "pending" arriving after the decision does not undo it.
    expect(transition(s, { type: 'appealChanged', appeal: appeal('pending') })).toBe(s);
    s = transition(s, { type: 'gradeStarted', submissionId: 's1', previous: null });
    expect(s.name).toBe('grading');
    expect(run([{ type: 'graded', result: { ...graded, previous: null } }], s).name).toBe('graded');
  });

  test('a confirmed block: the text can be rewritten and sent again, or dropped for a new one', () => {
    const s = run([{ type: 'submit' }, { type: 'blocked', submissionId: 's1' }, { type: 'appealRequested', appeal: appeal('pending') }, { type: 'appealChanged', appeal: appeal('confirmed') }]);
    expect(s).toMatchObject({ name: 'appealed', appeal: { status: 'confirmed' } });
    expect(textFrozen(s)).toBe(false);
    expect(transition(s, { type: 'submit' }).name).toBe('checking');
    expect(transition(s, { type: 'reset' }).name).toBe('draft');
  });

  test('a failed grading of a released appeal goes back to the appeal, to be graded again', () => {
    const s = run([{ type: 'restored', appeal: appeal('released'), failed: false }, { type: 'gradeStarted', submissionId: 's1', previous: null }, { type: 'failed', error: 'x' }]);
    expect(s).toMatchObject({ name: 'appealed', appeal: { status: 'released' } });
  });

  test('failed keeps the text and the graded answer being revised; sending again links to it', () => {
    let s = run([{ type: 'submit' }, { type: 'gradeStarted', submissionId: 's1', previous: null }, { type: 'graded', result: { ...graded, previous: null } }, { type: 'revise' }]);
    expect(s).toMatchObject({ name: 'revising', from: { id: 'g1' } });
    s = run([{ type: 'submit' }, { type: 'failed', error: 'Eroare' }], s);
    expect(s).toMatchObject({ name: 'failed', error: 'Eroare' });
    expect(errorOf(s)).toBe('Eroare');
    expect(revisingOf(s)?.id).toBe('g1');
    s = transition(s, { type: 'submit' });
    expect(revisingOf(s)?.id).toBe('g1');
    expect(transition(s, { type: 'gradeStarted', submissionId: 's2', previous: null })).toMatchObject({ name: 'grading', previous: { id: 'g1' } });
  });

  test('what the server recorded when the case opens: an appeal, a failure, or nothing', () => {
    expect(transition(initialSubmission, { type: 'restored', appeal: appeal('pending'), failed: false })).toMatchObject({ name: 'appealed', live: false });
    expect(transition(initialSubmission, { type: 'restored', appeal: null, failed: true })).toEqual({ name: 'failed', error: FAILED_BEFORE, revising: null });
    expect(transition(initialSubmission, { type: 'restored', appeal: null, failed: false }).name).toBe('draft');
  });

  test('late answers of steps no longer running change nothing', () => {
    const draft = initialSubmission;
    for (const e of [{ type: 'graded', result: { ...graded, previous: null } }, { type: 'blocked', submissionId: 's' }, { type: 'appealChanged', appeal: appeal('released') }, { type: 'failed', error: 'x' }] as SubmissionEvent[]) {
      expect(transition(draft, e)).toBe(draft);
    }
    const checking = transition(draft, { type: 'submit' });
    expect(transition(checking, { type: 'submit' })).toBe(checking);
    expect(textFrozen(checking)).toBe(true);
  });

  test('an empty text is refused in place', () => {
    expect(errorOf(transition(initialSubmission, { type: 'invalid', error: 'Te rugăm să introduci soluția ta.' }))).toBe('Te rugăm să introduci soluția ta.');
  });
});
