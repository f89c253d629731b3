/**
 * Command-line plumbing shared by every `attnscope` command: option parsing with one-sentence
 * errors, output paths refused before any work, atomic result files, the exit codes.
 */
import { statSync } from 'node:fs';
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

/**
 * Refuses, before any work is done, an output path that can never be written: a folder, or a
 * path under a file. An existing file is replaced atomically; a device or pipe (/dev/stdout) is
 * written in place; missing folders are created.
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
  const target = stat(path);
  if (target?.isDirectory()) throw new UsageError(`${flag} ${path} is a folder: give a file path, e.g. ${join(path, 'run.json')}`, false);
  if (target) return;
  for (let dir = dirname(resolve(path)); ; dir = dirname(dir)) {
    const st = stat(dir);
    if (st) {
      if (!st.isDirectory()) throw new UsageError(`${flag} ${path}: ${dir} is a file, not a folder`, false);
      return;
    }
    if (dirname(dir) === dir) return;
  }
}

/** Writes a result file; a failure (disk full, no permission) is one line and exit 1. */
export function writeOutput(path: string, text: string, flag: string): void {
  try {
    writeFileAtomic(path, text);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const why = err.code === 'ENOSPC' ? 'no space left on the device' : err.code === 'EACCES' || err.code === 'EPERM' ? 'permission denied' : err.message;
    throw new OutputError(`${flag} ${path}: cannot write: ${why}`);
  }
}

