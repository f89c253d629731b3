// A generated file kept in step with its source (the schema validators' code:
// scripts/profile-validator.mjs, scripts/run-validator.mjs; scripts/build.mjs writes them).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes `code` to `file` (relative to `root`) when the file is missing or differs, saying so on
 * stderr (`[build] FILE written from SOURCE`); with `check` it writes nothing and exits the process
 * with 1 instead, naming `fix`, the command that writes it. Returns whether the file was written.
 */
export function keepGenerated(root, file, code, { source, fix, check = false }) {
  const path = join(root, file);
  if (existsSync(path) && readFileSync(path, 'utf8') === code) return false;
  if (check) {
    process.stderr.write(`${file} is not in step with ${source}: run ${fix}\n`);
    process.exit(1);
  }
  writeFileSync(path, code);
  process.stderr.write(`[build] ${file} written from ${source}\n`);
  return true;
}
