import { meetingOfRecordSteps, meetingSteps, resolveSteps, type Statement, type Steps } from './meeting-identity-steps.ts';
import type { MeetingIdentities } from './meeting-identity-types.ts';
import type { Row } from './row-mappers.ts';

/** How an engine runs a sequence of steps: `write` as one transaction, `read` as plain reads. */
export interface StepRunner {
  write<T>(steps: () => Steps<T>): Promise<T>;
  read<T>(steps: () => Steps<T>): Promise<T>;
}

/** Runs every step at once (SQLite: the caller is inside one synchronous batch). */
export function driveSync<T>(steps: Steps<T>, query: (statement: Statement) => Row[]): T {
  let step = steps.next();
  while (!step.done) step = steps.next(query(step.value));
  return step.value;
}

/** Runs the steps one round trip at a time (PostgreSQL: the caller holds one connection in a transaction). */
export async function driveAsync<T>(steps: Steps<T>, query: (statement: Statement) => Promise<Row[]>): Promise<T> {
  let step = steps.next();
  while (!step.done) step = steps.next(await query(step.value));
  return step.value;
}

/** MeetingIdentities over either engine (meeting-identity-steps.ts holds the SQL, once for both). */
export function createMeetingIdentities(run: StepRunner): MeetingIdentities {
  return {
    resolve: (state, now = Date.now()) => run.write(() => resolveSteps(state, now)),
    meeting: (id) => run.read(() => meetingSteps(id)),
    meetingOfRecord: (recordKey) => run.read(() => meetingOfRecordSteps(recordKey)),
  };
}
