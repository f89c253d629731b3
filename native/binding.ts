/**
 * The one loader of the native part. Only native/*.ts import this; everything else goes through
 * native/index.ts, which validates arguments.
 *
 * Two builds of the same C++ (DESIGN.md "native/"), tried in this order:
 * 1. the native addon, native/build/Release/attnscope_native.node (node-gyp; every SIMD path of
 *    this CPU, threads, the CUDA loader), or the file $ATTNSCOPE_NATIVE names, then the one built
 *    elsewhere for this platform, native/prebuilds/<platform>-<arch>/attnscope_native.node (the
 *    linux-arm64 package's, cross-compiled: scripts/build.mjs --linux-arm64);
 * 2. the WebAssembly module, native/wasm/build/attnscope_wasm.js (em++; scalar and SIMD128, one
 *    thread, no CUDA), or the file $ATTNSCOPE_WASM names: what runs where no addon was built
 *    for the platform (macOS, Windows, arm64) or where it cannot load (another Node ABI).
 * ATTNSCOPE_BACKEND=wasm loads only the WebAssembly module, =native only the addon (tests, the
 * e2e's hidden addon); unset or 'auto' tries both. Each is looked for in native/ found by
 * walking up from this file (sources under tsx, bundles in dist/, an installed extension); a
 * file that exists but fails to load (another architecture, another Node ABI) is passed over for
 * the next.
 * @throws NativeMissingError naming every file tried and why each failed, and how to build them.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const ADDON_FILE = 'attnscope_native.node';
export const WASM_FILE = 'attnscope_wasm.js';

/** Which build of the native part is loaded. */
export type NativeBuild = 'native' | 'wasm';

/** The loaded build: which, its file, and why the native addon was not used when it was not. */
export interface LoadedBuild {
  build: NativeBuild;
  path: string;
  /** Set when the WebAssembly module runs although ATTNSCOPE_BACKEND did not ask for it. */
  fallbackReason?: string;
}

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

const BUILDS: Record<NativeBuild, { name: string; candidates: () => string[]; howToBuild: string }> = {
  native: {
    name: 'native addon',
    candidates: () => [...nativeFileCandidates(process.env.ATTNSCOPE_NATIVE, 'build', 'Release', ADDON_FILE),
      ...nativeFileCandidates(undefined, 'prebuilds', `${process.platform}-${process.arch}`, ADDON_FILE)],
    howToBuild: '`npm run build:native` builds it (needs g++, make and python3)',
  },
  wasm: {
    name: 'WebAssembly module',
    candidates: () => nativeFileCandidates(process.env.ATTNSCOPE_WASM, 'wasm', 'build', WASM_FILE),
    howToBuild: '`npm run build:wasm` builds it (needs Emscripten: apt-get install emscripten)',
  },
};

/** The builds ATTNSCOPE_BACKEND allows, in the order they are tried. @throws RangeError for another value. */
export function buildOrder(): NativeBuild[] {
  const forced = process.env.ATTNSCOPE_BACKEND ?? '';
  if (forced === '' || forced === 'auto') return ['native', 'wasm'];
  if (forced === 'native' || forced === 'wasm') return [forced];
  throw new RangeError(`ATTNSCOPE_BACKEND must be auto, native or wasm, got '${forced}'`);
}

/**
 * Neither build of the native part loads here (a package built without a compiler or Emscripten,
 * a platform without prebuilds): the message says what is missing, how to build it, and every
 * file tried. The CLI reports it as a case that cannot run here (one line, exit 2), not a crash.
 */
export class NativeMissingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NativeMissingError';
  }
}

let cached: unknown;
let loaded: LoadedBuild | undefined;

/** Requires the first file of `build` that exists and loads; the module, or why none loaded. */
function tryBuild(build: NativeBuild): { module: unknown; path: string } | { why: string } {
  const { name, candidates, howToBuild } = BUILDS[build];
  const tried = candidates();
  const failed: string[] = [];
  for (const path of tried) {
    if (!existsSync(path)) continue;
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      return { module: require(path), path };
    } catch (e) {
      failed.push(`the ${name} at ${path} failed to load: ${(e as Error).message}`);
    }
  }
  return { why: failed.length > 0 ? failed.join('; ') : `no ${name} found: ${howToBuild} (tried ${tried.join(', ')})` };
}

/** The raw module of the loaded build; typed views of it live in native/kernels.ts and the other parts. */
export function loadAddon<T = Record<string, unknown>>(): T {
  if (cached !== undefined) return cached as T;
  const failures: string[] = [];
  for (const build of buildOrder()) {
    const r = tryBuild(build);
    if ('why' in r) {
      failures.push(r.why);
      continue;
    }
    cached = r.module;
    loaded = { build, path: r.path, ...(failures.length > 0 ? { fallbackReason: failures.join('; ') } : {}) };
    return cached as T;
  }
  throw new NativeMissingError(`AttnScope has no kernels for this machine: ${failures.join('; ')}.`);
}

/** The raw module if {@link loadAddon} has loaded it already, else undefined (never loads it). */
export function addonIfLoaded<T = Record<string, unknown>>(): T | undefined {
  return cached as T | undefined;
}

/** Which build {@link loadAddon} loaded (loading it first). @throws as loadAddon. */
export function loadedBuild(): LoadedBuild {
  loadAddon();
  return loaded!;
}

/** The file {@link loadAddon} loads (the .node or the WebAssembly bundle), for a worker thread to load it too. @throws as loadAddon. */
export function addonPath(): string {
  return loadedBuild().path;
}
