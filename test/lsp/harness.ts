/**
 * A real LSP client for tests and the bench: it bundles server/main.ts with esbuild (so the
 * tests always run the current source as the shipped dist/server.js would be built), spawns it
 * with `--stdio` (or `--node-ipc`), and speaks to it through vscode-languageserver-protocol. Diagnostics are
 * awaited by document version (the server publishes the version it checked): no sleeps.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import {
  CodeActionRequest,
  CodeLensRequest,
  ExecuteCommandRequest,
  CompletionRequest,
  DidChangeTextDocumentNotification,
  DidChangeWatchedFilesNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  HoverRequest,
  InitializeRequest,
  InitializedNotification,
  InlayHintRefreshRequest,
  InlayHintRequest,
  IPCMessageReader,
  IPCMessageWriter,
  PublishDiagnosticsNotification,
  RegistrationRequest,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  createProtocolConnection,
  type CodeAction,
  type CodeLens,
  type Command,
  type CompletionItem,
  type CompletionList,
  type Diagnostic,
  type FileEvent,
  type Hover,
  type InlayHint,
  type Position,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
  type Range,
  type TextDocumentContentChangeEvent,
} from 'vscode-languageserver-protocol/node';
import { CannotRunRequest, HintsChangedNotification, ResolveProfileRequest } from '../../core/protocol/lsp';
import { tempDir } from '../fixtures/tmp';

export const root = join(__dirname, '..', '..');
let bundlePath: Promise<string> | null = null;

/** Bundles server/main.ts once per test process into a temporary dist/server.js equivalent. */
export function serverBundle(): Promise<string> {
  bundlePath ??= (async () => {
    const out = join(tempDir('attnscope-lsp-'), 'server.js');
    await build({
      entryPoints: [join(root, 'server', 'main.ts')],
      outfile: out,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      mainFields: ['module', 'main'],
      sourcemap: 'inline',
      logLevel: 'error',
    });
    return out;
  })();
  return bundlePath;
}

export interface ClientOptions {
  /** Passed as initializationOptions.validationDelayMs (default 0: check at once). */
  validationDelayMs?: number;
  /** How the server is started: `--stdio` (default) or `--node-ipc` (as VS Code's client may). */
  transport?: 'stdio' | 'ipc';
  /** initializationOptions.clientCommands: the client runs the extension's commands (default true, as the VS Code extension). */
  clientCommands?: boolean;
  /** Absolute paths sent as the workspace folders (default: none, rootUri and workspaceFolders null). */
  workspaceFolders?: string[];
  /** initializationOptions.hintsChanged: the client takes attnscope/hintsChanged in place of workspace/inlayHint/refresh (default false; the extension sends true). */
  hintsChanged?: boolean;
}

const fixturesDir = join(root, 'test', 'fixtures');
/** How long LspClient.logged waits for its line by default, ms of wall time. */
const LOGGED_TIMEOUT_MS = 120_000;

/** A fixture's URI and text (test/fixtures/<name>). */
/** An inlay hint's label as one string (it may come as parts). */
export function hintLabel(h: InlayHint): string {
  return typeof h.label === 'string' ? h.label : h.label.map((p) => p.value).join('');
}

export function fixture(name: string): { uri: string; path: string; text: string } {
  const path = join(fixturesDir, name);
  return { uri: pathToFileURL(path).href, path, text: readFileSync(path, 'utf8') };
}

/** URI of a file (existing or not) in the fixtures folder, so that relative model paths resolve there. */
export function fixtureUri(name: string): string {
  return pathToFileURL(join(fixturesDir, name)).href;
}

/** LSP position of a UTF-16 offset in `text`. */
export function positionAt(text: string, offset: number): Position {
  const before = text.slice(0, offset);
  const line = before.split('\n').length - 1;
  return { line, character: offset - (before.lastIndexOf('\n') + 1) };
}

/** LSP range of the `occurrence`-th (0-based) `needle` in `text`; throws when absent. */
export function rangeOf(text: string, needle: string, occurrence = 0): Range {
  let at = -1;
  for (let i = 0; i <= occurrence; i++) {
    at = text.indexOf(needle, at + 1);
    if (at < 0) throw new Error(`${JSON.stringify(needle)} (#${occurrence}) is not in the text`);
  }
  return { start: positionAt(text, at), end: positionAt(text, at + needle.length) };
}

/** Whatever the server asked of the client, counted (refresh requests, registrations). */
export interface ServerCalls {
  inlayHintRefresh: number;
  /** Each attnscope/hintsChanged notification's URIs, in order. */
  hintsChanged: string[][];
  registrations: string[];
  /** window/logMessage messages of type Error. */
  errors: string[];
  /** window/logMessage messages of type Info. */
  info: string[];
  /** window/showMessage messages, in order. */
  shown: Array<{ type: number; message: string }>;
}

export class LspClient {
  readonly calls: ServerCalls = { inlayHintRefresh: 0, hintsChanged: [], registrations: [], errors: [], info: [], shown: [] };
  /** Waiters for an info log line matching a pattern (logged). */
  private readonly infoWaiters: Array<{ pattern: RegExp; resolve: (line: string) => void; reject: (e: Error) => void }> = [];
  private readonly versions = new Map<string, number>();
  private readonly published = new Map<string, Diagnostic[]>();
  private readonly waiters = new Map<string, Array<{ resolve: (d: Diagnostic[]) => void; reject: (e: Error) => void }>>();
  /** Waiters for the next publish of a URI, whatever its version (re-checks after a dependency changed). */
  private readonly nextWaiters = new Map<string, Array<{ resolve: (p: PublishDiagnosticsParams) => void; reject: (e: Error) => void }>>();
  private readonly registered = new Map<string, () => void>();
  private stderrText = '';
  private readonly exited: Promise<number | null>;

  private constructor(
    private readonly child: ChildProcess,
    readonly connection: ProtocolConnection,
  ) {
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => (this.stderrText += chunk));
    this.exited = new Promise((resolve) =>
      child.on('exit', (code) => {
        const err = new Error(`the server exited (code ${code}):\n${this.stderrText}`);
        for (const list of [...this.waiters.values(), ...this.nextWaiters.values()]) for (const w of list) w.reject(err);
        for (const w of this.infoWaiters.splice(0)) w.reject(err);
        this.waiters.clear();
        this.nextWaiters.clear();
        resolve(code);
      }),
    );
    connection.onNotification(PublishDiagnosticsNotification.type, (p) => {
      const key = `${p.uri}@${p.version ?? -1}`;
      this.published.set(key, p.diagnostics);
      for (const w of this.waiters.get(key) ?? []) w.resolve(p.diagnostics);
      this.waiters.delete(key);
      for (const w of this.nextWaiters.get(p.uri) ?? []) w.resolve(p);
      this.nextWaiters.delete(p.uri);
    });
    connection.onNotification('window/logMessage', (p: { type: number; message: string }) => {
      if (p.type === 1) this.calls.errors.push(p.message);
      if (p.type === 3) {
        this.calls.info.push(p.message);
        for (const w of this.infoWaiters.filter((w) => w.pattern.test(p.message))) {
          this.infoWaiters.splice(this.infoWaiters.indexOf(w), 1);
          w.resolve(p.message);
        }
      }
    });
    connection.onNotification('window/showMessage', (p: { type: number; message: string }) => {
      this.calls.shown.push(p);
    });
    connection.onRequest(RegistrationRequest.type, (p) => {
      for (const r of p.registrations) {
        this.calls.registrations.push(r.method);
        this.registered.get(r.method)?.();
      }
    });
    connection.onNotification(HintsChangedNotification.method, (p: HintsChangedNotification.Params) => {
      this.calls.hintsChanged.push(p.uris);
    });
    connection.onRequest(InlayHintRefreshRequest.type, () => {
      this.calls.inlayHintRefresh++;
    });
    connection.listen();
  }

  /** Spawns the bundled server with --stdio and completes the initialize handshake. */
  static async start(options: ClientOptions = {}): Promise<LspClient> {
    const bundle = await serverBundle();
    const ipc = options.transport === 'ipc';
    const child = ipc
      ? fork(bundle, ['--node-ipc'], { execArgv: ['--enable-source-maps'], stdio: ['pipe', 'pipe', 'pipe', 'ipc'] })
      : spawn(process.execPath, ['--enable-source-maps', bundle, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
    const connection = ipc
      ? createProtocolConnection(new IPCMessageReader(child), new IPCMessageWriter(child))
      : createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    const client = new LspClient(child, connection);
    const died = client.exited.then((code) => {
      throw new Error(`the server exited (code ${code}) before answering initialize:\n${client.stderr}`);
    });
    const initialized = connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: null,
      workspaceFolders: options.workspaceFolders?.map((p) => ({ uri: pathToFileURL(p).href, name: basename(p) })) ?? null,
      // The bundle lives in a temporary folder: the server's simulate command is pointed at the built runner.
      initializationOptions: { validationDelayMs: options.validationDelayMs ?? 0, clientCommands: options.clientCommands ?? true, runnerPath: join(root, 'dist', 'runner.js'), hintsChanged: options.hintsChanged ?? false },
      capabilities: {
        workspace: { didChangeWatchedFiles: { dynamicRegistration: true }, inlayHint: { refreshSupport: true } },
        textDocument: {
          publishDiagnostics: { relatedInformation: true, versionSupport: true },
          hover: { contentFormat: ['markdown', 'plaintext'] },
          completion: { completionItem: { documentationFormat: ['markdown'], snippetSupport: false } },
          codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix'] } } },
          inlayHint: {},
        },
      },
    });
    await Promise.race([initialized, died]);
    await connection.sendNotification(InitializedNotification.type, {});
    return client;
  }

  /**
   * The first info log line (window/logMessage, type Info) matching `pattern`, logged or to come.
   * Rejects, naming the pattern and the info lines logged so far, when none comes within
   * `timeoutMs` of wall time (a hang guard, not a speed target: the default is far past the
   * background pass's 6-12 s over bench:lsp's 200 profiles at load 20-24), or when the server exits.
   * s49: a wait with no timeout of its own hung until the test file's 120 min timeout.
   */
  logged(pattern: RegExp, timeoutMs = LOGGED_TIMEOUT_MS): Promise<string> {
    const seen = this.calls.info.find((m) => pattern.test(m));
    if (seen !== undefined) return Promise.resolve(seen);
    if (!this.alive) return Promise.reject(new Error(`the server is not running:\n${this.stderrText}`));
    return new Promise((resolve, reject) => {
      const waiter = {
        pattern,
        resolve: (line: string) => {
          clearTimeout(timer);
          resolve(line);
        },
        reject: (err: Error) => {
          clearTimeout(timer);
          reject(err);
        },
      };
      const timer = setTimeout(() => {
        this.infoWaiters.splice(this.infoWaiters.indexOf(waiter), 1);
        reject(new Error(`no info log line matching ${pattern} within ${timeoutMs / 1000} s; logged: ${JSON.stringify(this.calls.info)}`));
      }, timeoutMs);
      this.infoWaiters.push(waiter);
    });
  }

  /** Resolves once the server has registered `method` dynamically (at once if it has). */
  registration(method: string): Promise<void> {
    if (this.calls.registrations.includes(method)) return Promise.resolve();
    return new Promise((resolve) => this.registered.set(method, resolve));
  }

  /** Everything the server wrote on stderr. */
  get stderr(): string {
    return this.stderrText;
  }

  /**
   * The server process's CPU time so far (user + system), ms, from Linux's /proc/<pid>/stat (fields
   * utime and stime, in clock ticks of 10 ms: sysconf(_SC_CLK_TCK) = 100 on Linux); NaN where there
   * is no /proc. The bench's CPU figures; no test reads it.
   */
  serverCpuMs(): number {
    try {
      const fields = readFileSync(`/proc/${this.child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      return NaN;
    }
  }

  /** True while the server process runs. */
  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Diagnostics the server publishes for `uri` at `version` (resolves at once if already published). */
  diagnostics(uri: string, version: number): Promise<Diagnostic[]> {
    const key = `${uri}@${version}`;
    const done = this.published.get(key);
    if (done !== undefined) return Promise.resolve(done);
    if (!this.alive) return Promise.reject(new Error(`the server is not running:\n${this.stderrText}`));
    return new Promise((resolve, reject) => {
      const list = this.waiters.get(key) ?? [];
      list.push({ resolve, reject });
      this.waiters.set(key, list);
    });
  }

  /** The next diagnostics the server publishes for `uri`, with their version (call before causing them). */
  nextDiagnostics(uri: string): Promise<PublishDiagnosticsParams> {
    if (!this.alive) return Promise.reject(new Error(`the server is not running:\n${this.stderrText}`));
    return new Promise((resolve, reject) => {
      const list = this.nextWaiters.get(uri) ?? [];
      list.push({ resolve, reject });
      this.nextWaiters.set(uri, list);
    });
  }

  /** Opens a document (version 1); resolves with its diagnostics. */
  async open(uri: string, text: string): Promise<Diagnostic[]> {
    this.sendOpen(uri, text);
    return this.diagnostics(uri, 1);
  }

  /** Opens a document (version 1) without waiting for its diagnostics. */
  sendOpen(uri: string, text: string): void {
    this.versions.set(uri, 1);
    this.forget(uri);
    const languageId = /\.ya?ml$/.test(uri) ? 'yaml' : 'json';
    void this.connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId, version: 1, text } });
  }

  /** Sends a change (whole text, or incremental edits); resolves with the new version's diagnostics. */
  async change(uri: string, change: string | TextDocumentContentChangeEvent[]): Promise<Diagnostic[]> {
    const version = this.sendChange(uri, change);
    return this.diagnostics(uri, version);
  }

  /** Sends a change without waiting; returns the new version. */
  sendChange(uri: string, change: string | TextDocumentContentChangeEvent[]): number {
    const version = (this.versions.get(uri) ?? 0) + 1;
    this.versions.set(uri, version);
    const contentChanges = typeof change === 'string' ? [{ text: change }] : change;
    void this.connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version }, contentChanges });
    return version;
  }

  async close(uri: string): Promise<void> {
    this.versions.delete(uri);
    await this.connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } });
  }

  /** Sends the client's settings as VS Code's client does for `synchronize.configurationSection` (workspace/didChangeConfiguration). */
  async changeSettings(settings: Record<string, unknown>): Promise<void> {
    await this.connection.sendNotification('workspace/didChangeConfiguration', { settings });
  }

  async filesChanged(changes: FileEvent[]): Promise<void> {
    await this.connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes });
  }

  inlayHints(uri: string, range: Range = { start: { line: 0, character: 0 }, end: { line: 1e6, character: 0 } }): Promise<InlayHint[] | null> {
    return this.connection.sendRequest(InlayHintRequest.type, { textDocument: { uri }, range });
  }

  hover(uri: string, position: Position): Promise<Hover | null> {
    return this.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position });
  }

  /** workspace/executeCommand. */
  executeCommand(command: string, args: unknown[]): Promise<unknown> {
    return this.connection.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
  }

  codeLenses(uri: string): Promise<CodeLens[] | null> {
    return this.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } });
  }

  /** Completion at `position`; `triggerCharacter` as the editor sends it when a typed character asked for it. */
  completion(uri: string, position: Position, triggerCharacter?: string): Promise<CompletionItem[] | CompletionList | null> {
    const context = triggerCharacter === undefined ? { triggerKind: 1 as const } : { triggerKind: 2 as const, triggerCharacter };
    return this.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position, context });
  }

  codeActions(uri: string, range: Range, diagnostics: Diagnostic[]): Promise<Array<Command | CodeAction> | null> {
    return this.connection.sendRequest(CodeActionRequest.type, { textDocument: { uri }, range, context: { diagnostics } });
  }

  resolveProfile(uri: string): Promise<ResolveProfileRequest.Result> {
    return this.connection.sendRequest(ResolveProfileRequest.method, { uri });
  }

  cannotRun(uris: string[], job: CannotRunRequest.Params['job']): Promise<CannotRunRequest.Result> {
    return this.connection.sendRequest(CannotRunRequest.method, { uris, job } satisfies CannotRunRequest.Params);
  }

  /** Ends the server process at once (after a failed test), so that no child outlives the test. */
  kill(): void {
    if (!this.alive) return;
    this.child.kill();
    this.connection.dispose();
  }

  /** shutdown + exit; resolves with the process exit code. */
  async stop(): Promise<number | null> {
    if (this.alive) {
      await this.connection.sendRequest(ShutdownRequest.type);
      await this.connection.sendNotification(ExitNotification.type);
    }
    const code = await this.exited;
    this.connection.dispose();
    return code;
  }

  private forget(uri: string): void {
    for (const key of [...this.published.keys()]) if (key.startsWith(`${uri}@`)) this.published.delete(key);
  }
}
