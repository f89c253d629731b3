/**
 * The model configs a profile's `model:` can point at: HuggingFace config.json files (or
 * *.config.json) on disk near the profile, for the completion of `model:` and the quick fix of a
 * path that does not resolve; and the trace files its `workload.trace` can name. Paths are given as the profile writes them: relative to its folder,
 * with forward slashes, starting with ./ or ../.
 */
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { readInputText } from '../core/fileText';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { isConfigPath, isModelConfigFile, isProfilePath, isSkippedFolder } from '../core/config';

/** How deep below each search root configs are looked for (examples/llama-3.1-8b/config.json is 2). */
const MAX_DEPTH = 4;
/** Most configs listed: a folder of checkpoints must not turn completion into a disk scan. */
const MAX_CONFIGS = 200;
/** Most directory entries read in one search. */
const MAX_ENTRIES = 20_000;

/**
 * The workspace folders the client named (LSP initialize's workspaceFolders, else rootUri;
 * didChangeWorkspaceFolders), as absolute paths: {@link modelConfigsNear} searches no folder
 * outside them. Empty when the client named none (a file opened on its own).
 */
let workspaceRoots: readonly string[] = [];

/** Sets the workspace folders (server.ts, at initialize and on each change). */
export function setWorkspaceRoots(roots: readonly string[]): void {
  workspaceRoots = [...roots];
}

/** True when `dir` is `root` or inside it. */
function within(dir: string, root: string): boolean {
  const r = relative(root, dir);
  return r === '' || (!r.startsWith('..') && !isAbsolute(r));
}

/**
 * Where the server must watch `absPath` itself because the client's watcher (VS Code's, over the
 * workspace folders) would not report a change to it under this path: its real path when a
 * symlink lies on its way, below a workspace folder or outside them all (VS Code's watcher follows no
 * symlinked folder: s53 newcomer-ed F0, a config reached through `model-dir -> /elsewhere/model-dir`
 * kept its old figures for ever); null when the client reports it, or it does not exist (its
 * creation is reported by the folder's watch). One realpath (and one per workspace folder holding
 * it) per call: server.ts asks once per path.
 */
export function serverWatchedAt(absPath: string): string | null {
  let real: string;
  try {
    real = realpathSync.native(absPath);
  } catch {
    return null;
  }
  let inside = false;
  for (const root of workspaceRoots) {
    if (!within(absPath, root)) continue;
    inside = true;
    try {
      if (join(realpathSync.native(root), relative(root, absPath)) === real) return null;
    } catch {
      // A workspace folder gone: it reports nothing.
    }
  }
  // Outside the workspace folders with no symlink on the way: its stat is checked at each analysis
  // (workspace.ts diskText), as before; a symlinked one is watched.
  return inside || real !== absPath ? real : null;
}

/**
 * Model configs under the profile's folder and its parent folder (depth MAX_DEPTH), as paths
 * relative to the profile's folder ("./llama-3.1-8b/config.json", "../models/x/config.json"),
 * nearest first (fewest "..", then fewest folders, then by name). A file counts when
 * isModelConfigFile accepts its name and text (it has model_type or architectures). The parent
 * is searched only when it lies inside a workspace folder ({@link setWorkspaceRoots}; any parent
 * when the client named none): a profile at the workspace's top offers nothing from outside it.
 */
export function modelConfigsNear(profileFile: string): string[] {
  const from = dirname(profileFile);
  const found = new Set<string>();
  const budget = { entries: 0 };
  const walk = (dir: string, depth: number): void =>
    walkFiles(dir, depth, MAX_DEPTH, budget, () => found.size >= MAX_CONFIGS, (path, name) => {
      if (!isConfigPath(name)) return;
      // Unreadable, a FIFO (a read would block the server), or past MAX_INPUT_TEXT_BYTES: not offered.
      const text = readInputText(path, new Map());
      if (text !== null && isModelConfigFile(path, text)) found.add(path);
    });
  walk(from, 0);
  // The parent's other folders (a profile in profiles/ pointing at ../models/...); the profile's own folder is done.
  const parent = dirname(from);
  if (parent !== from && (workspaceRoots.length === 0 || workspaceRoots.some((r) => within(parent, r)))) {
    try {
      for (const name of readdirSync(parent).sort()) {
        const path = join(parent, name);
        if (path === from || isSkippedFolder(name)) continue;
        try {
          if (statSync(path).isDirectory()) walk(path, 1);
          else if (isConfigPath(name)) {
            const text = readInputText(path, new Map());
            if (text !== null && isModelConfigFile(path, text)) found.add(path);
          }
        } catch {
          // vanished or unreadable
        }
      }
    } catch {
      // unreadable parent
    }
  }
  const rel = [...found].map((p) => profileRelative(from, p));
  const ups = (p: string): number => p.split('/').filter((s) => s === '..').length;
  return rel.sort((a, b) => ups(a) - ups(b) || a.split('/').length - b.split('/').length || a.localeCompare(b));
}

/**
 * The file name endings of the traces `simulate --trace` reads (runner/simulate/traces.ts: the format is told by
 * the first line, not the name): JSONL (attnscope, Mooncake), CSV (Azure, BurstGPT), JSON (vllm bench serve results).
 */
const TRACE_FILE = /\.(jsonl|csv|json)$/i;
/** Most trace candidates listed. */
const MAX_TRACES = 200;

/**
 * Files a profile's workload.trace can name: those under the profile's folder (depth 2, hidden
 * folders and node_modules skipped) whose name ends as a trace's does, less model configs
 * (isConfigPath) and profiles (isProfilePath), as the profile writes them ("./traces/chat.jsonl"),
 * nearest first, then by name. Names only: no file is read (a trace can be GBs).
 */
export function traceFilesNear(profileFile: string): string[] {
  const from = dirname(profileFile);
  const found: string[] = [];
  const walk = (dir: string, depth: number): void =>
    walkFiles(dir, depth, 2, { entries: 0 }, () => found.length >= MAX_TRACES, (path, name) => {
      if (TRACE_FILE.test(name) && !isConfigPath(name) && !isProfilePath(name)) found.push(path);
    });
  walk(from, 0);
  const rel = found.map((p) => profileRelative(from, p));
  return rel.sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
}

/** How deep below a workspace folder {@link workspaceProfiles} looks. */
const PROFILES_DEPTH = 8;
/**
 * Most profiles {@link workspaceProfiles} lists: it bounds the background pass's CPU at the server's
 * start (~2 s for 200 at load 20); a pick lists up to 5,000 (extension/pick.ts PICK_FILE_LIMIT) and
 * analyses those past them when it first asks.
 */
const MAX_PROFILES = 200;

/**
 * The profiles (isProfilePath) of the workspace folders ({@link setWorkspaceRoots}), at most
 * MAX_PROFILES, down to PROFILES_DEPTH folders, hidden folders, node_modules and __pycache__ skipped
 * (SKIPPED_FOLDERS, the folders the pick's findFiles skips), in sorted walk order; names only. The
 * language server's background pass answers the pick's check of these before a pick asks
 * (pickPrefill.ts). Configs are left to the first pick that offers them (a benchmark's or an
 * estimate's): with bench:lsp's 150 configs besides its 200 profiles the pass took 2.0-2.5 s of CPU
 * (load 16), 1.5-2.1 s without them (load 20-24).
 */
export function workspaceProfiles(): string[] {
  const found: string[] = [];
  const budget = { entries: 0 };
  for (const root of workspaceRoots) {
    walkFiles(root, 0, PROFILES_DEPTH, budget, () => found.length >= MAX_PROFILES, (path, name) => {
      if (isProfilePath(name)) found.push(path);
    });
  }
  return found;
}

/**
 * Visits the files under `dir` (`depth` folders below the search root) down to `maxDepth`, names
 * in sorted order, the folders core/config/fileKinds.ts SKIPPED_FOLDERS names skipped (those the
 * extension's picks skip): `onFile(path, name)` for each file,
 * until `full()` or `budget.entries` (directory entries read, shared by a search's walks) reaches
 * {@link MAX_ENTRIES}. Unreadable folders and entries gone meanwhile are passed over. The one
 * walk of {@link modelConfigsNear}, {@link traceFilesNear} and {@link workspaceProfiles}.
 */
function walkFiles(dir: string, depth: number, maxDepth: number, budget: { entries: number }, full: () => boolean, onFile: (path: string, name: string) => void): void {
  if (full() || budget.entries >= MAX_ENTRIES) return;
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return;
  }
  budget.entries += names.length;
  for (const name of names) {
    if (full()) return;
    const path = join(dir, name);
    let isDir: boolean;
    try {
      isDir = statSync(path).isDirectory();
    } catch {
      continue;
    }
    if (isDir) {
      if (depth < maxDepth && !isSkippedFolder(name)) walkFiles(path, depth + 1, maxDepth, budget, full, onFile);
    } else onFile(path, name);
  }
}

/** `path` relative to `from` as a profile writes it: forward slashes, ./ or ../ first. */
function profileRelative(from: string, path: string): string {
  const r = relative(from, path).split(sep).join('/');
  return r.startsWith('../') ? r : `./${r}`;
}

/** Levenshtein distance of `a` and `b` (case-insensitive). */
function distance(a: string, b: string): number {
  const [s, t] = [a.toLowerCase(), b.toLowerCase()];
  let prev = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const cur = [i];
    for (let j = 1; j <= t.length; j++) cur.push(Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (s[i - 1] === t[j - 1] ? 0 : 1)));
    prev = cur;
  }
  return prev[t.length]!;
}

/**
 * The `count` candidates (modelConfigsNear's form) most like the path the user wrote: by edit
 * distance of the folder and file names the path names (a folder given without /config.json
 * is compared with the candidate's folder), ties in candidate order.
 */
export function closestModelConfigs(written: string, candidates: readonly string[], count = 3): string[] {
  const want = written.replace(/\\/g, '/').replace(/\/+$/, '');
  const wantTail = /\.json$/i.test(want) ? want : `${want}/config.json`;
  const key = (p: string): string => p.split('/').filter((s) => s !== '.' && s !== '..').slice(-2).join('/');
  return candidates
    .map((c, i) => ({ c, i, d: distance(key(wantTail), key(c)) }))
    .sort((x, y) => x.d - y.d || x.i - y.i)
    .slice(0, count)
    .map((x) => x.c);
}

/** The name the completion list shows for a candidate: its folder and file ("llama-3.1-8b/config.json"). */
export function modelConfigLabel(candidate: string): string {
  return `${basename(dirname(candidate))}/${basename(candidate)}`;
}
