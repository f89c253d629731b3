/**
 * The sweep reports in a results folder, for "Open sweep results": `attnscope sweep` writes each
 * sweep's report one level below the default folder (.attnscope/sweeps/<name>-<hash>/
 * sweep-report.json), `attnscope merge <folder>` into the folder itself. No `vscode` import.
 */
import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { MAX_EDITOR_RESULT_TEXT_BYTES, readRegularTextAsync } from '../core/fileText';
import { formatBytes } from '../core/format';
import type { SweepReport } from '../core/protocol/sweep';
import { newestFirst } from './history';
import { forgetFolder, listFiles } from './listedFiles';
import { profileState, type ProfileStart, type ProfileState } from './profileEdited';

/**
 * One readable sweep report, as the lists show it: what they say of it, not its rows (a report is
 * ~1.5 KB a row; readSweepReport reads the one opened).
 */
export interface SweepReportEntry {
  /** Absolute path of the sweep-report.json. */
  file: string;
  /** The report's name (its profile's file name) and its folder, e.g. `page-size.attn.yaml (page-size-d4cf7d4c)`. */
  label: string;
  /** Rows (points × environments) the report holds. */
  points: number;
  /** The report's createdAt (ISO 8601). */
  createdAt: string;
  /** The report's name, job, total and sweepId (SweepReport). */
  name: string;
  job: SweepReport['job'];
  total: number;
  sweepId: string;
  /** Points no environment has a result for (SweepReport.missing.length). */
  missing: number;
  /** SweepReport.interrupted. */
  interrupted: boolean;
  /** SweepReport.profile, when recorded. */
  profile?: SweepReport['profile'];
}

/**
 * The sweep report in `file`. Throws an Error saying why it is none, in words after its path:
 * missing (the stat's error), no regular file (a FIFO is not waited on), over
 * MAX_EDITOR_RESULT_TEXT_BYTES (with its size and the command that reads it), not JSON, or not a
 * sweep report.
 */
export async function loadSweepReport(file: string): Promise<SweepReport> {
  const text = await readRegularTextAsync(file, MAX_EDITOR_RESULT_TEXT_BYTES);
  if (typeof text !== 'string') {
    if (text.kind !== 'size') throw new Error(text.why);
    // Too big to parse on the extension host's thread; the CLI reads up to MAX_RESULT_TEXT_BYTES, and merge writes the rows of the sweep's folder as a table.
    throw new Error(`${formatBytes(text.bytes ?? 0)}, over the ${formatBytes(MAX_EDITOR_RESULT_TEXT_BYTES)} the editor reads; \`attnscope merge ${JSON.stringify(dirname(file))} --csv points.csv\` writes its rows as a table`);
  }
  let report: SweepReport;
  try {
    report = JSON.parse(text) as SweepReport;
  } catch (err) {
    throw new Error(`not JSON (${(err as Error).message})`, { cause: err });
  }
  if (report?.kind !== 'attnscope-sweep-report' || !Array.isArray(report.rows)) throw new Error('not a sweep report (kind "attnscope-sweep-report" with rows)');
  return report;
}

/** The sweep report in `file`, or null when it is none ({@link loadSweepReport} says why). */
export async function readSweepReport(file: string): Promise<SweepReport | null> {
  return loadSweepReport(file).catch(() => null);
}

/** The list entry of `report`, read from `file` in folder `name` of the folder listed. */
function entryOf(file: string, name: string, report: SweepReport): SweepReportEntry {
  const missing = Array.isArray(report.missing) ? report.missing.length : 0;
  return { file, label: `${report.name} (${name})`, points: report.rows.length, createdAt: report.createdAt, name: report.name, job: report.job, total: report.total, sweepId: report.sweepId, missing, interrupted: report.interrupted === true, ...(report.profile ? { profile: report.profile } : {}) };
}

/** Why a listed folder's sweep-report.json is left out, or null when it has none (a sweep running, a point's folder). */
function skipWhy(file: string, err: unknown): string | null {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return null;
  return `${file}: ${err instanceof Error ? err.message : String(err)}`;
}

/**
 * Each `<file>: <why>` of {@link sweepReportsIn}'s `skipped` with its file as `relative` names it
 * (vscode.workspace.asRelativePath): the one naming of a report left out, in the Open sweep results
 * toast and under History's sweeps.
 */
export function namedSkipped(skipped: readonly string[], relative: (file: string) => string): string[] {
  return skipped.map((s) => {
    const at = s.indexOf(': ');
    return at < 0 ? s : relative(s.slice(0, at)) + s.slice(at);
  });
}

/**
 * The readable sweep reports in `folder`: its own sweep-report.json, else those of its
 * subfolders (one level down), newest first; `skipped` names each sweep-report.json there that is
 * none, `<file>: <why>` ({@link loadSweepReport}: over the editor's size, not JSON, ...). Empty
 * when the folder does not exist. A report unchanged since the last listing is not read again
 * (listedFiles.ts).
 */
export async function sweepReportsIn(folder: string): Promise<{ entries: SweepReportEntry[]; skipped: string[] }> {
  const own = join(folder, 'sweep-report.json');
  const ownList = await listFiles('sweep', folder, ['.'], () => own, async () => entryOf(own, '.', await loadSweepReport(own)), (_, err) => skipWhy(own, err));
  if (ownList.entries.length > 0 || ownList.skipped.length > 0) return ownList;
  let names: string[];
  try {
    if (!(await stat(folder)).isDirectory()) return { entries: [], skipped: [] };
    names = await readdir(folder);
  } catch {
    forgetFolder('sweeps', folder);
    return { entries: [], skipped: [] };
  }
  const file = (name: string): string => join(folder, name, 'sweep-report.json');
  const listed = await listFiles('sweeps', folder, names.filter((n) => !n.startsWith('.')).sort(), file, async (name) => entryOf(file(name), name, await loadSweepReport(file(name))), (name, err) => skipWhy(file(name), err));
  return { entries: listed.entries.sort(newestFirst), skipped: listed.skipped };
}

/**
 * The newest report marked interrupted (SweepReport.interrupted: the points a cancelled sweep kept,
 * merged by the runner) of the profile `name` (its file name, as SweepReport.name) in any of
 * `folders` (each a results root: .attnscope/sweeps), for the window after a reload that stopped
 * that sweep (Dashboard.showNoticeFromLastWindow); null when none is there (none kept, or the
 * stopped runner has not written it yet: History lists it once it has).
 */
export async function interruptedReportOf(folders: readonly string[], name: string): Promise<{ file: string; report: SweepReport } | null> {
  const entry = await interruptedEntryOf(folders, name);
  const report = entry && (await readSweepReport(entry.file));
  return entry && report ? { file: entry.file, report } : null;
}

/** The list entry of {@link interruptedReportOf}'s report, its rows unread. */
async function interruptedEntryOf(folders: readonly string[], name: string): Promise<SweepReportEntry | null> {
  const found = (await Promise.all(folders.map((f) => sweepReportsIn(f)))).flatMap((l) => l.entries).filter((e) => e.interrupted && e.name === name);
  return found.sort(newestFirst)[0] ?? null;
}

/**
 * The profile an interrupted sweep of the file `path` recorded (SweepReport.profile: path, SHA-256
 * of the text it read, its --set / --max-rate), from the newest interrupted report of that file's
 * name in `folders` whose profile is that path; null when none records it (an older runner's report,
 * or none written yet). The reloaded window's Resume sweep checks it as the Sweep tab's does.
 */
export async function interruptedProfileOf(folders: readonly string[], path: string): Promise<NonNullable<SweepReport['profile']> | null> {
  const kept = await interruptedEntryOf(folders, basename(path));
  const profile = kept?.profile;
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
