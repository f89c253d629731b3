/**
 * Loads the compiled addon (native/build/Release/attnscope_native.node). Only native/*.ts
 * import this; everything else goes through native/index.ts, which validates arguments.
 *
 * Looked up, in order: $ATTNSCOPE_NATIVE (a path to the .node file), then
 * native/build/Release/ found by walking up from this file (works from sources under tsx and
 * from the bundles in dist/).
 * @throws Error naming every path tried and the command that builds the addon.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const ADDON_FILE = 'attnscope_native.node';

/**
 * Where a built file of native/ may be: `override` (an environment variable's path) first, then
 * native/<rel> and <rel> in this file's folder and up to three folders above it (sources under
 * tsx, bundles in dist/, an installed extension). Without duplicates, in that order.
 */
export function nativeFileCandidates(override: string | undefined, ...rel: string[]): string[] {
  const out: string[] = [];
  if (override) out.push(override);
  let dir = __dirname;
  for (let i = 0; i < 4; i++) {
    out.push(join(dir, 'native', ...rel));
    out.push(join(dir, ...rel));
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return out.filter((p, i) => out.indexOf(p) === i);
}

const candidates = (): string[] => nativeFileCandidates(process.env.ATTNSCOPE_NATIVE, 'build', 'Release', ADDON_FILE);

let cached: unknown;
let cachedPath: string | undefined;

/** The raw addon module; typed views of it live in native/kernels.ts and native/allocator.ts. */
export function loadAddon<T = Record<string, unknown>>(): T {
  if (cached !== undefined) return cached as T;
  const tried = candidates();
  for (const p of tried) {
    if (!existsSync(p)) continue;
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      cached = require(p);
      cachedPath = p;
      return cached as T;
    } catch (e) {
      throw new Error(
        `AttnScope native addon at ${p} failed to load: ${(e as Error).message}. ` +
          'Rebuild it for this Node.js with `npm run build:native` (needs g++ and python3).',
        { cause: e },
      );
    }
  }
  throw new Error(
    `AttnScope native addon not found (tried ${tried.join(', ')}). ` +
      'Build it with `npm run build:native` (needs g++, make and python3), or set ATTNSCOPE_NATIVE to the .node file.',
  );
}

/** The .node file {@link loadAddon} loads, for a worker thread to load it too. @throws as loadAddon. */
export function addonPath(): string {
  loadAddon();
  return cachedPath!;
}
