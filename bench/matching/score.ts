import type { Category, Expected, LabelledMeeting, SentRecords } from './labels.ts';

/**
 * Scores what the bridge sent against the labels. A meeting's answer is the records of its remap,
 * or `undefined` when no remap came (the bridge skipped it). Definitions (docs/performance.md,
 * matching accuracy):
 * - opportunity recall and precision, on meetings with one right opportunity: the right one sent,
 *   over those meetings (recall) and over those where any opportunity was sent (precision);
 * - account accuracy, on meetings whose label names an Account: that Account sent, or no Account
 *   but the right opportunity (which names its Account);
 * - a wrong link: a record sent that is not the label's (on a none-meeting, any record), or an
 *   opportunity or Account of an ambiguous meeting outside its tie;
 * - an ambiguous meeting is guessed when an opportunity of its tie was sent (or one of the tied
 *   Accounts where the label names none), flagged otherwise;
 * - exact: the answer is the label's, whole and nothing else.
 */

export type Answer = SentRecords | undefined;

export interface Verdict {
  meeting: LabelledMeeting;
  answer: Answer;
  exact: boolean;
  /** Set on meetings with one right opportunity. */
  opportunity?: { sent: boolean; right: boolean };
  /** Set on meetings whose label names an Account. */
  accountRight?: boolean;
  /** Each record sent that is wrong, in words. */
  wrong: string[];
  /** Set on ambiguous meetings. */
  guessed?: boolean;
  /** Set on none-meetings: something was sent. */
  linkedNone?: boolean;
}

const sentKinds = (answer: Answer) => (['opportunityId', 'accountId', 'leadId'] as const).filter((kind) => answer?.[kind] !== undefined);

function judgeRecords(expected: Extract<Expected, { kind: 'records' }>, answer: Answer): Omit<Verdict, 'meeting' | 'answer' | 'exact'> {
  const wrong = sentKinds(answer)
    .filter((kind) => answer![kind] !== expected[kind])
    .map((kind) => `${kind} ${answer![kind]} (expected ${expected[kind] ?? 'none'})`);
  const opportunityRight = expected.opportunityId !== undefined && answer?.opportunityId === expected.opportunityId;
  return {
    wrong,
    ...(expected.opportunityId === undefined ? {} : { opportunity: { sent: answer?.opportunityId !== undefined, right: opportunityRight } }),
    ...(expected.accountId === undefined ? {} : { accountRight: answer?.accountId === undefined ? opportunityRight : answer.accountId === expected.accountId }),
  };
}

function judgeAmbiguous(expected: Extract<Expected, { kind: 'ambiguous' }>, answer: Answer): Omit<Verdict, 'meeting' | 'answer' | 'exact'> {
  const tiedOpportunities = new Set(expected.tied.map((entry) => entry.opportunityId));
  const tiedAccounts = new Set(expected.tied.map((entry) => entry.accountId));
  const wrong: string[] = [];
  if (answer?.opportunityId !== undefined && !tiedOpportunities.has(answer.opportunityId)) wrong.push(`opportunityId ${answer.opportunityId} (not in the tie)`);
  if (answer?.accountId !== undefined && answer.accountId !== expected.accountId && !tiedAccounts.has(answer.accountId))
    wrong.push(`accountId ${answer.accountId} (not in the tie)`);
  if (answer?.leadId !== undefined) wrong.push(`leadId ${answer.leadId} (expected none)`);
  const guessedAccount = expected.accountId === undefined && answer?.accountId !== undefined && tiedAccounts.has(answer.accountId);
  return {
    wrong,
    guessed: (answer?.opportunityId !== undefined && tiedOpportunities.has(answer.opportunityId)) || guessedAccount,
    ...(expected.accountId === undefined ? {} : { accountRight: answer?.accountId === expected.accountId }),
  };
}

export function judge(meeting: LabelledMeeting, answer: Answer): Verdict {
  const { expected } = meeting;
  if (expected.kind === 'none') {
    const linked = sentKinds(answer).length > 0;
    return { meeting, answer, exact: !linked, wrong: sentKinds(answer).map((kind) => `${kind} ${answer![kind]} (expected nothing)`), linkedNone: linked };
  }
  const parts = expected.kind === 'records' ? judgeRecords(expected, answer) : judgeAmbiguous(expected, answer);
  const complete =
    expected.kind === 'records'
      ? (['opportunityId', 'leadId'] as const).every((kind) => expected[kind] === undefined || answer?.[kind] === expected[kind]) &&
        parts.accountRight !== false
      : parts.guessed === false && (expected.accountId === undefined || parts.accountRight === true);
  return { meeting, answer, ...parts, exact: complete && parts.wrong.length === 0 };
}

export interface Score {
  meetings: number;
  exact: number;
  /** Meetings with one right opportunity. */
  withOpportunity: number;
  opportunitySent: number;
  opportunityRight: number;
  /** Right ÷ sent (NaN when none was sent). */
  precision: number;
  /** Right ÷ meetings with one right opportunity (NaN when there are none). */
  recall: number;
  withAccount: number;
  accountRight: number;
  accountAccuracy: number;
  /** Meetings with at least one wrong record. */
  wrongLinks: number;
  ambiguous: number;
  guessed: number;
  flagged: number;
  noneMeetings: number;
  linkedNone: number;
}

export function score(verdicts: readonly Verdict[]): Score {
  const count = (test: (verdict: Verdict) => boolean) => verdicts.filter(test).length;
  const withOpportunity = count((verdict) => verdict.opportunity !== undefined);
  const opportunitySent = count((verdict) => verdict.opportunity?.sent === true);
  const opportunityRight = count((verdict) => verdict.opportunity?.right === true);
  const withAccount = count((verdict) => verdict.accountRight !== undefined);
  const accountRight = count((verdict) => verdict.accountRight === true);
  const ambiguous = count((verdict) => verdict.guessed !== undefined);
  const guessed = count((verdict) => verdict.guessed === true);
  return {
    meetings: verdicts.length,
    exact: count((verdict) => verdict.exact),
    withOpportunity,
    opportunitySent,
    opportunityRight,
    precision: opportunitySent === 0 ? Number.NaN : opportunityRight / opportunitySent,
    recall: withOpportunity === 0 ? Number.NaN : opportunityRight / withOpportunity,
    withAccount,
    accountRight,
    accountAccuracy: withAccount === 0 ? Number.NaN : accountRight / withAccount,
    wrongLinks: count((verdict) => verdict.wrong.length > 0),
    ambiguous,
    guessed,
    flagged: ambiguous - guessed,
    noneMeetings: count((verdict) => verdict.linkedNone !== undefined),
    linkedNone: count((verdict) => verdict.linkedNone === true),
  };
}

/** Scores per category, in the order of `categories`, with the meetings of each. */
export function scoreByCategory(verdicts: readonly Verdict[], categories: readonly Category[]): Array<{ category: Category; score: Score }> {
  return categories.map((category) => ({ category, score: score(verdicts.filter((verdict) => verdict.meeting.category === category)) }));
}

const canonical = (answer: Answer) => (answer === undefined ? 'no remap' : JSON.stringify(sentKinds(answer).map((kind) => [kind, answer[kind]])));

/** Ids of the meetings whose answer differs between two runs of the same set. */
export function differingAnswers(meetings: readonly LabelledMeeting[], first: ReadonlyMap<string, Answer>, second: ReadonlyMap<string, Answer>): string[] {
  return meetings.filter((meeting) => canonical(first.get(meeting.id)) !== canonical(second.get(meeting.id))).map((meeting) => meeting.id);
}
