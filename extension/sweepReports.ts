/**
 * The sweep reports in a results folder, for "Open sweep results": `attnscope sweep` writes each
 * sweep's report one level below the default folder (.attnscope/sweeps/<name>-<hash>/
 * sweep-report.json), `attnscope merge <folder>` into the folder itself. No `vscode` import.
 */
import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { MAX_EDITOR_RESULT_TEXT_BYTES, readRegularTextAsync } from '../core/fileText';
import type { SweepReport } from '../core/protocol/sweep';
import { newestFirst } from './history';
import { profileState, type ProfileStart, type ProfileState } from './profileEdited';

/** One readable sweep report. */
export interface SweepReportEntry {
  /** Absolute path of the sweep-report.json. */
  file: string;
  /** The report's name (its profile's file name) and its folder, e.g. `page-size.attn.yaml (page-size-d4cf7d4c)`. */
  label: string;
  /** Rows (points × environments) the report holds. */
  points: number;
  /** The report's createdAt (ISO 8601). */
  createdAt: string;
  report: SweepReport;
}

/** The sweep report in `file`, or null when it is missing, no regular file (a FIFO is not waited on), over MAX_EDITOR_RESULT_TEXT_BYTES, not JSON or not a sweep report. */
export async function readSweepReport(file: string): Promise<SweepReport | null> {
  try {
    const text = await readRegularTextAsync(file, MAX_EDITOR_RESULT_TEXT_BYTES);
    if (typeof text !== 'string') return null;
    const report = JSON.parse(text) as SweepReport;
    return report?.kind === 'attnscope-sweep-report' && Array.isArray(report.rows) ? report : null;
  } catch {
    return null;
  }
}

/**
 * The readable sweep reports in `folder`: its own sweep-report.json, else those of its
 * subfolders (one level down), newest first. Empty when the folder does not exist.
 */
export async function sweepReportsIn(folder: string): Promise<SweepReportEntry[]> {
  const entry = async (dir: string, name: string): Promise<SweepReportEntry | null> => {
    const file = join(dir, 'sweep-report.json');
    const report = await readSweepReport(file);
    return report && { file, label: `${report.name} (${name})`, points: report.rows.length, createdAt: report.createdAt, report };
  };
  const own = await entry(folder, '.');
  if (own) return [own];
  let names: string[];
  try {
    if (!(await stat(folder)).isDirectory()) return [];
    names = await readdir(folder);
  } catch {
    return [];
  }
  const found = await Promise.all(names.filter((n) => !n.startsWith('.')).sort().map((n) => entry(join(folder, n), n)));
  return found.filter((e): e is SweepReportEntry => e !== null).sort(newestFirst);
}

/**
 * The newest report marked interrupted (SweepReport.interrupted: the points a cancelled sweep kept,
 * merged by the runner) of the profile `name` (its file name, as SweepReport.name) in any of
 * `folders` (each a results root: .attnscope/sweeps), for the window after a reload that stopped
 * that sweep (Dashboard.showNoticeFromLastWindow); null when none is there (none kept, or the
 * stopped runner has not written it yet: History lists it once it has).
 */
export async function interruptedReportOf(folders: readonly string[], name: string): Promise<SweepReportEntry | null> {
  const found = (await Promise.all(folders.map((f) => sweepReportsIn(f)))).flat().filter((e) => e.report.interrupted === true && e.report.name === name);
  return found.sort(newestFirst)[0] ?? null;
}

/**
 * The profile an interrupted sweep of the file `path` recorded (SweepReport.profile: path, SHA-256
 * of the text it read, its --set / --max-rate), from the newest interrupted report of that file's
 * name in `folders` whose profile is that path; null when none records it (an older runner's report,
 * or none written yet). The reloaded window's Resume sweep checks it as the Sweep tab's does.
 */
export async function interruptedProfileOf(folders: readonly string[], path: string): Promise<NonNullable<SweepReport['profile']> | null> {
  const kept = await interruptedReportOf(folders, basename(path));
  const profile = kept?.report.profile;
  return profile && typeof profile.path === 'string' && typeof profile.sha256 === 'string' && profile.path === path ? profile : null;
}

/**
 * The flags after the profile that run an interrupted report's sweep again (SweepReport.profile):
 * each `--set` argument as `--set=key=v1,v2` (one argument, so a value that starts with "-" is not
 * read as a flag), `--max-rate`, and `--out=<outDir>` when given; empty for a sweep of the file as
 * written into its default folder. Without them a sweep run with --set resumed as the file's own
 * sweep (other axes, another id, none of its points kept), and one run with --out resumed into the
 * default folder, running every point again (s43 review).
 * A report's file may hold anything: what is not a list of strings there is taken as not given.
 * @param outDir the folder holding the interrupted report (dirname of its sweep-report.json).
 */
export function resumeArgs(profile: NonNullable<SweepReport['profile']>, outDir?: string): string[] {
  const set: unknown[] = Array.isArray(profile.set) ? profile.set : [];
  return [...set.filter((s): s is string => typeof s === 'string').map((s) => `--set=${s}`), ...(profile.maxRate === true ? ['--max-rate'] : []), ...(outDir === undefined ? [] : [`--out=${outDir}`])];
}

/**
 * Whether the profile an interrupted sweep ran (SweepReport.profile: its path and the SHA-256 of its
 * text) can be run again to resume it: 'same' when the file reads as it did, 'changed' when its text
 * differs (a changed profile is another sweep, whose points are not those kept: Resume warns
 * first), 'missing' when it cannot be read (moved, deleted, or on another machine), with why. The
 * file on disk, which the runner reads (profileEdited.ts profileState, the dashboard's check too).
 */
export async function resumableProfile(profile: ProfileStart): Promise<ProfileState> {
  return profileState(profile);
}
