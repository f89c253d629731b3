/**
 * A run the runner refused before any work (exit 2, core/protocol/runner.ts EXIT_BAD_INPUT), told
 * in the editor's terms: the runner's advice is for the command line ("Use --backend cpu"); in
 * the editor the backend comes from the `attnscope.backend` setting or the profile's
 * `device.backend`, so the reason names the one that asked for it. No `vscode` import.
 */
import type { Backend, Profile } from '../core/config/types';
import type { RunnerOutcome } from '../core/runnerProcess';

export interface Refusal {
  /** What is wrong and what to change, one sentence or two. */
  reason: string;
  /** The setting to change ("attnscope.backend"), when a setting asked for what was refused. */
  setting?: string;
  /** The profile key to change ("device.backend"), when the profile asked for it. */
  profileKey?: string;
}

/** The runner's one-line reason: its `error` event, else its last `attnscope: ...` stderr line. */
function runnerReason(outcome: Pick<RunnerOutcome, 'error' | 'logTail'>): string {
  if (outcome.error) return outcome.error;
  const line = [...outcome.logTail].reverse().find((l) => l.startsWith('attnscope: ')) ?? outcome.logTail.at(-1) ?? 'the runner refused the run';
  return line.replace(/^attnscope: /, '');
}

/**
 * The refusal of `outcome` for a run of `profile` started with the `attnscope.backend` setting
 * `settingBackend`. A backend refusal ("... Use --backend cpu") names the setting when it is not
 * 'auto' (the setting wins over the profile), else the profile's device.backend.
 */
export function refusalOf(outcome: Pick<RunnerOutcome, 'error' | 'logTail'>, profile: Pick<Profile, 'device'>, settingBackend: Backend): Refusal {
  // A missing native part lists every file it looked for (up to 8 per build): the toast keeps what
  // is missing and how to build it; the runner's line, paths and all, is in the log.
  const raw = runnerReason(outcome).replace(/ \(tried [^)]*\)/g, '');
  const m = /^(.*?)\.? Use --backend (\w+)\.?$/s.exec(raw);
  if (!m) return { reason: raw };
  // The CLI names the flag the setting became ("--backend cuda: ..."): the setting is named below instead.
  const why = m[1]!.replace(/^--backend \w+: /, '');
  const other = m[2]!;
  if (settingBackend !== 'auto') {
    return { reason: `${why}. The setting "attnscope.backend" asks for ${settingBackend}: set it to "auto" (or "${other}").`, setting: 'attnscope.backend' };
  }
  return { reason: `${why}. The profile's device.backend is ${profile.device.backend}: set it to auto (or ${other}).`, profileKey: 'device.backend' };
}
