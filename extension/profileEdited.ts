/**
 * Whether the profile a run or a sweep started from still reads as it did: one check for the
 * dashboard's Run tab (a simulation or benchmark, RunResult.sourceSha256) and Sweep tab (the
 * report's SweepReport.profile), and for Resume sweep (sweepReports.ts resumableProfile). A run
 * whose profile was edited while it ran showed its figures as the profile's, with nothing saying
 * they are of the earlier text (s44 newcomer-ed F3). No `vscode` import: the editor's open text
 * comes in as a function.
 */
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { MAX_INPUT_TEXT_BYTES, readRegularText, type NotRead } from '../core/fileText';

/** SHA-256 of `text` as UTF-8, hex: what the runner records of a profile it read (runner/sweep/spec.ts profileSha256) and the editor of the text it ran. */
export function textSha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** A profile as a run started from it: its file (absolute path) and the SHA-256 of the text run ({@link textSha256}). */
export interface ProfileStart {
  path: string;
  sha256: string;
}

/** How a profile reads now against the text a run started from; 'missing' with why when it cannot be read. */
export type ProfileState = { state: 'same' | 'changed' } | { state: 'missing'; why: string };

/**
 * The profile `start.path` now against `start.sha256`: its text in the editor when `openText`
 * gives one (an open document, saved or not: the text the next run of it would run), else the
 * file as every profile is read (core/fileText.ts readRegularText, at most MAX_INPUT_TEXT_BYTES: a
 * folder, a FIFO or a device now at that path, or a file too big, is 'missing' unread, with why).
 * The text is compared, not the file's time or size: a save of the same text is no edit, and
 * `arrival_rate: 24` -> `30` keeps the size.
 */
export function profileState(start: ProfileStart, openText: (path: string) => string | undefined = () => undefined): ProfileState {
  let text: string | NotRead | undefined = openText(start.path);
  if (text === undefined) {
    try {
      text = readRegularText(start.path, MAX_INPUT_TEXT_BYTES);
    } catch (err) {
      return { state: 'missing', why: (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : err instanceof Error ? err.message : String(err) };
    }
  }
  if (typeof text !== 'string') return { state: 'missing', why: text.why };
  return { state: textSha256(text) === start.sha256 ? 'same' : 'changed' };
}

/** What was run: a run's kind as the note names it. */
export type RunWhat = 'simulation' | 'benchmark' | 'sweep';

/**
 * The note over a result whose profile was edited after the run started, e.g. "profile edited
 * since this simulation started: the figures below are of the earlier text of
 * llama-3.1-8b.attn.yaml; run it again for the file as it is now".
 */
export function profileEditedText(path: string, what: RunWhat): string {
  return `profile edited since this ${what} started: the figures below are of the earlier text of ${basename(path)}; run the ${what} again for the file as it is now`;
}

/**
 * The note for a result run from `start` ({@link profileEditedText}) when the profile now differs
 * from it ({@link profileState} 'changed'); null when it reads the same, cannot be read (moved or
 * deleted: nothing to run again), or the run recorded no start (a CLI run, a merged report).
 */
export function profileEditedNote(start: Partial<ProfileStart> | undefined, what: RunWhat, openText?: (path: string) => string | undefined): string | null {
  if (typeof start?.path !== 'string' || typeof start.sha256 !== 'string') return null;
  return profileState({ path: start.path, sha256: start.sha256 }, openText).state === 'changed' ? profileEditedText(start.path, what) : null;
}
