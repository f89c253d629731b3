import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadedBuild } from '../native';

/** The package version (kept in step with package.json by a test). */
export const TOOL_VERSION = '0.1.0';

const identities = new Map<string, string>();

/**
 * The build identity of the runner whose code is the bundle `script` (dist/runner.js), as its runs
 * record it (RunHeader.tool "attnscope <identity>", Environment.toolVersion):
 * `<TOOL_VERSION>+<12 hex digits>`, the digits of SHA-256 over what determines its results — the
 * bytes of the bundle (every line of core/ and runner/ it runs, messages included) and of the
 * native build it loads (native/binding.ts: the addon's .node or the WebAssembly bundle, whose
 * kernels it times and whose pool simulator it runs). The package version alone does not move
 * when the code does (s36: a sweep resumed after a rebuild mixed old and new points). A git
 * commit is not used: a dirty tree runs other code under the same commit, and a commit that
 * changes no runner code would set points apart that are alike.
 *
 * `<TOOL_VERSION>+source` when `script` is TypeScript (run by tsx from the sources: no one file
 * holds the code). Cached per script.
 */
export function buildIdentity(script: string): string {
  const cached = identities.get(script);
  if (cached !== undefined) return cached;
  let identity = `${TOOL_VERSION}+source`;
  if (!script.endsWith('.ts')) {
    const hash = createHash('sha256').update(readFileSync(script));
    let nativeFile: string | null;
    try {
      nativeFile = loadedBuild().path;
    } catch {
      nativeFile = null; // No native build: a simulation or benchmark fails before it writes a figure.
    }
    hash.update(nativeFile ? readFileSync(nativeFile) : 'no native build');
    identity = `${TOOL_VERSION}+${hash.digest('hex').slice(0, 12)}`;
  }
  identities.set(script, identity);
  return identity;
}

/** This runner's build identity ({@link buildIdentity} of its own bundle; `+source` under tsx). */
export function toolBuild(): string {
  return buildIdentity(__filename);
}
