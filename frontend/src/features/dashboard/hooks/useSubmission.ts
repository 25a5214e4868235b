import { useEffect, useReducer, useRef } from 'react';
import { useAuthStore, useUserId } from '../../../lib/auth/store';
import { useQuery } from '../../../lib/query';
import { toast } from '../../../components/ui/toast';
import { SignalRecorder } from '../utils/signals';
import { accepts, initialSubmission, revisingOf, transition, type SubmissionState } from '../utils/submission';
import { insertSubmission, readDetection, readGraded, runTask, saveSignals, type Graded } from '../api/submissions';
import { openSubmissionOnCase, requestHumanReview, watchAppeal } from '../api/appeal';
import type { SolutionText } from './useSolutionText';

const ERROR = 'Ne pare rău, a apărut o eroare. Te rugăm să încerci din nou.';
// What the gateway answers (502) when a grade could not be finalised; shown as it is.
const NOT_FINALISED = 'Evaluarea nu a putut fi finalizată. Încearcă din nou.';

// The message of an Anthropic-shaped error from the gateway, if any.
function gatewayMessage(e: unknown): string | undefined {
  const body = (e as { error?: { error?: { message?: unknown } } })?.error;
  const m = body?.error?.message;
  return typeof m === 'string' ? m : undefined;
}

// Drives a case's submission through its states (utils/submission): the server calls of
// each step, the appeal followed live, and what the server recorded when the case opens.
// A refusal of the seminar's checks (deadline passed, no revisions left, …): its Romanian
// message is shown as it is; the text stays in the editor and its draft.
function seminarRefusal(e: unknown): string | undefined {
  const err = e as { hint?: unknown; message?: unknown };
  return typeof err?.hint === 'string' && err.hint.startsWith('seminar_') && typeof err.message === 'string' ? err.message : undefined;
}

export function useSubmission(caseId: string, draft: SolutionText, assignmentId: string | null = null) {
  const [state, dispatch] = useReducer(transition, initialSubmission);
  const recorder = useRef(new SignalRecorder());
  const current = useRef<SubmissionState>(state);
  useEffect(() => {
    current.current = state;
  }, [state]);

  const grade = async (submissionId: string, previous: Graded | null) => {
    const { session } = useAuthStore.getState();
    if (!session) return;
    dispatch({ type: 'gradeStarted', submissionId, previous });
    try {
      await runTask(session.access_token, 'grade', submissionId);
      const graded = await readGraded(submissionId);
      dispatch({ type: 'graded', result: { ...graded, previous } });
      toast.success('Evaluare completă!', 'Soluția ta a fost evaluată cu succes.');
    } catch (e) {
      const msg = gatewayMessage(e);
      dispatch({ type: 'failed', error: msg === NOT_FINALISED ? NOT_FINALISED : ERROR });
      toast.error('Eroare la evaluare', msg ?? (e as Error).message);
    }
  };
  const gradeRef = useRef(grade);
  useEffect(() => {
    gradeRef.current = grade;
  });

  // What the server recorded for the latest submission to this case: an appeal (pending or
  // decided), or a failed check or grading whose text comes back to be sent again.
  const { load } = draft;
  const loadRef = useRef(load);
  useEffect(() => {
    loadRef.current = load;
  });
  const userId = useUserId();
  // Read afresh at each opening of the case (gcTime 0: no answer of an earlier visit).
  const opened = useQuery(userId ? ['open-submission', caseId, userId] : null, () => openSubmissionOnCase(caseId, userId!), { gcTime: 0 }).data;
  const restored = !!opened && (!!opened.appeal || opened.failed);
  const applied = useRef<typeof opened>(undefined);
  useEffect(() => {
    if (!opened || applied.current === opened) return;
    applied.current = opened;
    if (!opened.appeal && !opened.failed) return;
    loadRef.current(opened.text, opened.level, !opened.appeal);
    dispatch({ type: 'restored', appeal: opened.appeal, failed: opened.failed });
  }, [opened]);

  // While an appeal is pending its outcome arrives live; a release starts the grading.
  const pendingId = state.name === 'appealed' && state.appeal.status === 'pending' ? state.appeal.id : null;
  useEffect(() => {
    if (!pendingId) return;
    const stop = watchAppeal(
      pendingId,
      (a) => {
        const s = current.current;
        const wasPending = s.name === 'appealed' && s.appeal.status === 'pending';
        dispatch({ type: 'appealChanged', appeal: a });
        if (wasPending && a.status === 'released') void gradeRef.current(a.submission_id, null);
      },
      () => dispatch({ type: 'appealLive', live: true }),
    );
    return () => {
      dispatch({ type: 'appealLive', live: false });
      stop();
    };
  }, [pendingId]);

  const evaluate = async () => {
    if (!accepts(state, { type: 'submit' })) return;
    if (!draft.text.trim()) {
      dispatch({ type: 'invalid', error: 'Te rugăm să introduci soluția ta.' });
      return;
    }
    const { session, user } = useAuthStore.getState();
    if (!session || !user) return;
    const previous = revisingOf(state);
    dispatch({ type: 'submit' });
    let submissionId: string;
    try {
      submissionId = await insertSubmission({
        user_id: user.id,
        case_id: caseId,
        submission_text: draft.text,
        difficulty_rating: draft.level,
        previous_submission_id: previous?.id ?? null,
        ...(assignmentId ? { assignment_id: assignmentId } : {}),
      });
      draft.submitted();
      // The editor's process signals go with the submission, before its check (moderators read them).
      const signals = recorder.current.snapshot();
      recorder.current.reset();
      await saveSignals(submissionId, user.id, signals);
      await runTask(session.access_token, 'detect', submissionId);
      const check = await readDetection(submissionId);
      // The database's verdict on the recorded check (ai_check_cleared), not a rule of ours.
      if (!check?.ai_cleared) {
        dispatch({ type: 'blocked', submissionId });
        toast.error('Text generat de AI detectat', 'Te rugăm să scrii soluția cu propriile tale cuvinte.');
        return;
      }
    } catch (e) {
      const refused = seminarRefusal(e);
      dispatch({ type: 'failed', error: refused ?? ERROR });
      toast.error(refused ? 'Tema nu a fost predată' : 'Eroare la evaluare', refused ?? gatewayMessage(e) ?? (e as Error).message);
      return;
    }
    await grade(submissionId, previous);
  };

  const askForReview = async () => {
    if (state.name !== 'blocked') return;
    dispatch({ type: 'appealRequesting' });
    try {
      dispatch({ type: 'appealRequested', appeal: await requestHumanReview(state.submissionId) });
    } catch (e) {
      dispatch({ type: 'appealFailed', error: (e as { message?: string }).message || ERROR });
    }
  };

  return {
    state,
    restored,
    recorder,
    evaluate,
    askForReview,
    gradeReleased: () => state.name === 'appealed' && void grade(state.submissionId, null),
    revise: () => {
      if (state.name !== 'graded') return;
      draft.replace(state.result.text, state.result.level);
      recorder.current.reset();
      dispatch({ type: 'revise' });
    },
    reset: () => {
      if (state.name === 'graded') draft.replace('', 3);
      else draft.replace('', draft.level);
      recorder.current.reset();
      dispatch({ type: 'reset' });
    },
  };
}
