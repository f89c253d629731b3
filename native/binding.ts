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

function candidates(): string[] {
  const out: string[] = [];
  if (process.env.ATTNSCOPE_NATIVE) out.push(process.env.ATTNSCOPE_NATIVE);
  let dir = __dirname;
  for (let i = 0; i < 4; i++) {
    out.push(join(dir, 'native', 'build', 'Release', ADDON_FILE));
    out.push(join(dir, 'build', 'Release', ADDON_FILE));
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return out;
}

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
