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
import { MAX_INPUT_TEXT_BYTES, readRegularText } from '../core/fileText';
import type { RunResult } from '../core/protocol/run';

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
  const text = currentText(start.path, openText);
  if (typeof text !== 'string') return { state: 'missing', why: text.why };
  return { state: textSha256(text) === start.sha256 ? 'same' : 'changed' };
}

/**
 * The text of `path` as a run of it would read it now: the editor's open text when `openText`
 * gives one, else the file's (readRegularText, at most MAX_INPUT_TEXT_BYTES), else why not
 * ('no such file', 'a folder', ...).
 */
export function currentText(path: string, openText: (path: string) => string | undefined = () => undefined): string | { why: string } {
  const open = openText(path);
  if (open !== undefined) return open;
  try {
    const text = readRegularText(path, MAX_INPUT_TEXT_BYTES);
    return typeof text === 'string' ? text : { why: text.why };
  } catch (err) {
    return { why: (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : err instanceof Error ? err.message : String(err) };
  }
}

/** What was run: a run's kind as the note names it. */
export type RunWhat = 'simulation' | 'benchmark' | 'sweep';

/** Which file was edited: the profile, or the model's config.json it names. */
export type EditedFile = 'profile' | 'model config';

/**
 * The note over a result whose profile (or the model config it names) was edited after the run
 * started, e.g. "profile edited since this simulation started: the figures below are of the
 * earlier text of llama-3.1-8b.attn.yaml; run the simulation again for the file as it is now".
 */
export function profileEditedText(path: string, what: RunWhat, file: EditedFile = 'profile'): string {
  return `${file} edited since this ${what} started: the figures below are of the earlier text of ${basename(path)}; run the ${what} again for the file as it is now`;
}

/**
 * The note for a result run from `start` ({@link profileEditedText}) when the profile now differs
 * from it ({@link profileState} 'changed'); null when it reads the same, cannot be read (moved or
 * deleted: nothing to run again), or the run recorded no start (a CLI run, a merged report).
 */
export function profileEditedNote(start: Partial<ProfileStart> | undefined, what: RunWhat, openText?: (path: string) => string | undefined, file: EditedFile = 'profile'): string | null {
  if (typeof start?.path !== 'string' || typeof start.sha256 !== 'string') return null;
  return profileState({ path: start.path, sha256: start.sha256 }, openText).state === 'changed' ? profileEditedText(start.path, what, file) : null;
}

/**
 * The note over a simulation or benchmark `run` ({@link profileEditedNote}): its profile's
 * (RunResult.sourceSha256), else its model config's (profile.modelPath against
 * RunResult.modelSha256); null when both read as they did or were not recorded.
 */
export function runEditedNote(run: Pick<RunResult, 'kind' | 'profile' | 'sourceSha256' | 'modelSha256'>, openText?: (path: string) => string | undefined): string | null {
  const what = run.kind === 'simulate' ? 'simulation' : 'benchmark';
  return (
    profileEditedNote({ path: run.profile.sourcePath ?? undefined, sha256: run.sourceSha256 }, what, openText) ??
    profileEditedNote({ path: run.profile.modelPath ?? undefined, sha256: run.modelSha256 }, what, openText, 'model config')
  );
}

/**
 * The dashboard's notes, each with the result it is over: `current` the run shown (by its
 * createdAt), `sweep` the sweep report shown (by its sweepId); `note` null when its profile reads
 * as it did. Absent: nothing of that kind shown.
 */
export interface EditedNotes {
  current?: { createdAt: string; note: string | null };
  sweep?: { sweepId: string; note: string | null };
}

/**
 * Keeps the dashboard's "profile edited" notes live: the note was worked out only when a result was
 * sent to the page, so an edit of the profile after it showed added no note until something sent
 * the result again (s45). Told of every change of a file (an open document's edit, a save, a
 * document closed with its edits dropped), it works the notes out again `delayMs` after the last
 * change of a file they depend on (`paths()`: the profiles of the results shown and the model
 * configs they name) — one hash of
 * the text per pause in typing, not per keystroke — and sends them when they differ from those
 * sent last ({@link sent}: the notes that went with the results themselves).
 */
export class LiveEditedNotes {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private last: EditedNotes = {};

  /**
   * @param paths the files the notes depend on (absolute paths).
   * @param notes the notes now (profileEditedNote of each result shown).
   * @param send sends changed notes to the page.
   * @param delayMs the pause after the last change before the notes are worked out, in ms.
   */
  constructor(
    private readonly paths: () => readonly string[],
    private readonly notes: () => EditedNotes,
    private readonly send: (notes: EditedNotes) => void,
    private readonly delayMs = 300,
  ) {}

  /** The notes the page has now for the results in `notes` (sent with them); the other result's stays as it was. */
  sent(notes: EditedNotes): void {
    this.last = { ...this.last, ...notes };
  }

  /** File `path` changed: the notes are worked out again after the pause when a result shown depends on it. */
  changed(path: string): void {
    if (!this.paths().includes(path)) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.check(), this.delayMs);
  }

  private check(): void {
    this.timer = undefined;
    const notes = this.notes();
    if (JSON.stringify(notes.current) === JSON.stringify(this.last.current) && JSON.stringify(notes.sweep) === JSON.stringify(this.last.sweep)) return;
    this.last = notes;
    this.send(notes);
  }

  /** Stops a pending check (the page closed). */
  dispose(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
