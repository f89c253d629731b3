/**
 * Command-line plumbing shared by every `attnscope` command: option parsing with one-sentence
 * errors, output paths refused before any work (never creating folders), atomic result files, the exit codes.
 */
import { closeSync, openSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { writeFileAtomic } from './atomic';
import { OutputError, UsageError } from './errors';

/** Exit code of a command cancelled by SIGINT / SIGTERM (128 + SIGINT). */
export const EXIT_CANCELLED = 130;

/** `attnscope <command> --help`: the usage, exit 0. */
export class HelpRequest extends Error {}

export function parse<O extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: O) {
  if (argv.includes('--help') || argv.includes('-h')) throw new HelpRequest();
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    // Node's text ("Unknown option '--x'. To specify a positional argument starting with a '-',
    // place it at the end of the command after '--', as in '-- \"--x\"") shortened to its first sentence.
    throw new UsageError((e as Error).message.replace(/\. To specify a positional argument.*$/s, ''));
  }
}

/** Why a write failed, in words (errno code -> phrase). */
function writeFailure(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  if (err.code === 'ENOSPC') return 'no space left on the device';
  if (err.code === 'EACCES' || err.code === 'EPERM') return 'permission denied';
  if (err.code === 'EROFS') return 'read-only file system';
  return err.message;
}

/**
 * Refuses, before any work is done, an output path that cannot be written: a folder; a path
 * under a file; a folder that does not exist (it is not created: a typo in a path would
 * otherwise leave a run in a folder nobody looks in; say `mkdir -p` first); a folder or file
 * this process may not write (found by creating and removing a probe file beside the target,
 * so that read-only mounts and root's limits count too). An existing file is replaced
 * atomically; a device or pipe (/dev/stdout) is written in place.
 * @throws UsageError (exit 2, one line) naming the flag, the path and the reason.
 */
export function checkOutputPath(path: string | undefined, flag: string): void {
  if (path === undefined) return;
  if (path === '') throw new UsageError(`${flag} needs a file path`);
  const stat = (p: string) => {
    try {
      return statSync(p);
    } catch {
      return undefined;
    }
  };
  const refuse = (why: string) => new UsageError(`${flag} ${path}: ${why}`, false);
  const target = stat(path);
  if (target?.isDirectory()) throw new UsageError(`${flag} ${path} is a folder: give a file path, e.g. ${join(path, 'run.json')}`, false);
  if (target && !target.isFile()) {
    // A device or pipe: written in place, so it must open for writing.
    try {
      closeSync(openSync(path, 'a'));
    } catch (e) {
      throw refuse(`cannot write: ${writeFailure(e)}`);
    }
    return;
  }
  const dir = dirname(resolve(path));
  const st = stat(dir);
  if (!st) {
    for (let up = dirname(dir); dirname(up) !== up; up = dirname(up)) {
      const above = stat(up);
      if (above && !above.isDirectory()) throw refuse(`${up} is a file, not a folder`);
      if (above) break;
    }
    throw refuse(`the folder ${dirname(path)} does not exist (it is not created for you: mkdir -p ${dirname(path)} first)`);
  }
  if (!st.isDirectory()) throw refuse(`${dir} is a file, not a folder`);
  // The result is written to a temporary file in that folder and renamed over the target.
  const probe = join(dir, `.attnscope-probe-${process.pid}-${Date.now()}`);
  try {
    closeSync(openSync(probe, 'wx'));
  } catch (e) {
    throw refuse(`cannot write in ${dir}: ${writeFailure(e)}`);
  }
  rmSync(probe, { force: true });
}

/** Writes a result file; a failure (disk full, no permission) is one line and exit 1. */
export function writeOutput(path: string, text: string, flag: string): void {
  try {
    writeFileAtomic(path, text);
  } catch (e) {
    throw new OutputError(`${flag} ${path}: cannot write: ${writeFailure(e)}`);
  }
}

