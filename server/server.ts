/**
 * The AttnScope language server, apart from its transport: `startServer(connection)` registers
 * every handler on a connection the caller made (stdio or IPC in server/main.ts, in-memory
 * streams in tests). Each request runs through runSafe (cancellation, errors -> fallback), each
 * notification through guard; analyses are cached per document version in the Workspace.
 */
import { existsSync } from 'node:fs';
import {
  CodeActionKind,
  DidChangeWatchedFilesNotification,
  MessageType,
  ShowMessageNotification,
  TextDocumentSyncKind,
  TextDocuments,
  WatchKind,
  type CancellationToken,
  type ResponseError,
  type FileSystemWatcher,
  type ClientCapabilities,
  type Connection,
  type InitializeResult,
} from 'vscode-languageserver';
import { basename, join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { PoolResult } from '../core/protocol/run';
import { CannotRunRequest, HintsChangedNotification, ResolveProfileRequest } from '../core/protocol/lsp';
import { codeActions } from './actions';
import { completion, COMPLETION_TRIGGERS } from './completion';
import { toDiagnostics } from './diagnostics';
import { hover } from './hover';
import { inlayHints } from './hints';
import { hintMode, type HintMode } from './hintView';
import { codeLenses, estimateSummary, SERVER_COMMANDS } from './lenses';
import { serverWatchedAt, setWorkspaceRoots, workspaceProfiles } from './modelPaths';
import { uriToPath } from './paths';
import { analysisReasons, cannotRunOf, resolveProfile } from './resolve';
import { timingEnabled, timingMark } from '../core/timingLog';
import { cancelled, describeError, guard, runSafe } from './safe';
import { PickPrefill } from './pickPrefill';
import { ReadWatcher } from './readWatcher';
import { simulateProfile } from './simulate';
import { checkTrace } from './traceCheck';
import { ValidationScheduler } from './validation';
import { Workspace } from './workspace';

/** What the client may pass in `initializationOptions`. */
export interface ServerOptions {
  /** Quiet time after an edit before diagnostics are computed, ms (default 150; tests and the bench use 0). */
  validationDelayMs?: number;
  /** Which inlay hints show, for clients that send no `attnscope` settings (hintView.ts HintMode). */
  hints?: string;
  /** The client implements the extension's commands (core/protocol/lsp.ts Commands): its code lenses may name them (lenses.ts). */
  clientCommands?: boolean;
  /** The runner the server's simulate command starts (default: runner.js beside this server's bundle). */
  runnerPath?: string;
  /** The client takes attnscope/hintsChanged (core/protocol/lsp.ts), naming the documents whose hints changed, in place of workspace/inlayHint/refresh. */
  hintsChanged?: boolean;
}

const DEFAULT_VALIDATION_DELAY_MS = 150;

/** Files whose change can alter an analysis: configs, profiles, any JSON a profile points at, the traces a workload.trace names (JSONL, CSV; a vllm bench result is JSON). */
const WATCHED_GLOBS = ['**/*.json', '**/*.attn.yaml', '**/*.attn.yml', '**/*.jsonl', '**/*.ndjson', '**/*.csv'];

/**
 * Every path's creation and deletion: a folder renamed, deleted or made again is one event for the
 * folder (VS Code's watcher does not report each file inside, so the globs above miss it), and a
 * profile reading a config in that folder must be checked again (Workspace.fileChanged matches the
 * files under a changed folder). s38 newcomer-ed 1: a profile kept its hints after its config's
 * folder was renamed, and its "cannot read" error after the folder came back.
 */
const WATCHED_CREATE_DELETE: FileSystemWatcher = { globPattern: '**/*', kind: WatchKind.Create | WatchKind.Delete };

/**
 * Registers all handlers on `connection` and starts listening. Returns when the handlers are in
 * place; the connection's lifetime is the caller's.
 */
export function startServer(connection: Connection): void {
  const documents = new TextDocuments(TextDocument);
  const log = connection.console;
  const workspace = new Workspace(documents, log);
  // A document's analysis answers the pick's check of its file once it closes (kept by the stamps of what it read).
  workspace.reasonsOfAnalysis = analysisReasons;
  let capabilities: ClientCapabilities = {};
  /** The `attnscope.hints` setting: from initializationOptions, then the client's `attnscope` settings. */
  let hints: HintMode = 'all';
  /** initializationOptions.clientCommands. */
  let clientCommands = false;
  /** initializationOptions.hintsChanged. */
  let hintsChanged = false;
  /** initializationOptions.runnerPath, else the bundled runner beside dist/server.js. */
  let runnerPath = join(__dirname, 'runner.js');
  /** Watches the files analyses read when the client does not watch files for the server. */
  let watcher: ReadWatcher | null = null;
  /** The paths read whose watching was decided (serverWatchedAt), with a client that watches files: forgotten when the workspace folders change. */
  const asked = new Set<string>();
  /** Answers the pick's check of the workspace's files in the background (pickPrefill.ts), kept by the workspace. */
  const prefill = new PickPrefill((uri) => void cannotRunOf(workspace, uri, 'bench'), (uri) => workspace.isOpen(uri), log);
  /** Lists the workspace folders' profiles off the initialize path and answers them in the background. */
  const prefillWorkspace = (): void => void setImmediate(() => guard(log, 'pick prefill', () => prefill.start(workspaceProfiles())));

  const scheduler = new ValidationScheduler(
    connection,
    {
      version: (uri) => documents.get(uri)?.version ?? null,
      diagnostics: (uri) => {
        const found = workspace.problems(uri);
        return found === null ? [] : toDiagnostics(found.analysis, found.problems, capabilities);
      },
    },
    DEFAULT_VALIDATION_DELAY_MS,
  );

  /**
   * Asks the client to pull the hints of the open documents `uris` again: attnscope/hintsChanged
   * naming them to a client that takes it, else workspace/inlayHint/refresh (every document's).
   */
  async function hintsOf(uris: string[]): Promise<void> {
    if (hintsChanged) await connection.sendNotification(HintsChangedNotification.method, { uris } satisfies HintsChangedNotification.Params);
    else if (capabilities.workspace?.inlayHint?.refreshSupport) await connection.languages.inlayHint.refresh();
  }

  /** Re-checks documents whose analysis read a changed file, and asks the client to re-pull their hints. */
  function recheckDependents(uris: string[]): void {
    const open = uris.filter((u) => documents.get(u) !== undefined);
    if (open.length === 0) return;
    for (const uri of open) scheduler.schedule(uri);
    void hintsOf(open).catch(() => undefined);
  }

  connection.onInitialize((params): InitializeResult => {
    capabilities = params.capabilities;
    const options = (params.initializationOptions ?? {}) as ServerOptions;
    const delay = options.validationDelayMs;
    if (typeof delay === 'number' && Number.isFinite(delay) && delay >= 0) scheduler.delayMs = delay;
    if (options.hints !== undefined) hints = hintMode(options.hints);
    clientCommands = options.clientCommands === true;
    hintsChanged = options.hintsChanged === true;
    if (typeof options.runnerPath === 'string' && options.runnerPath !== '') runnerPath = options.runnerPath;
    // A profile's workload.trace is read by the runner, off this thread (traceCheck.ts).
    workspace.traceChecker = (path, settings, signal) => checkTrace(runnerPath, path, { settings, signal });
    workspace.onTraceChecked = (uris) => guard(log, 'trace checked', () => recheckDependents(uris));
    // The workspace folders bound the model configs `model:` completion and its quick fix offer (modelPaths.ts).
    const folders = params.workspaceFolders?.map((f) => f.uri) ?? (params.rootUri ? [params.rootUri] : []);
    setWorkspaceRoots(folders.map(uriToPath).filter((p) => p !== null));
    return {
      capabilities: {
        workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
        hoverProvider: true,
        inlayHintProvider: { resolveProvider: false },
        codeLensProvider: { resolveProvider: false },
        completionProvider: { triggerCharacters: COMPLETION_TRIGGERS, resolveProvider: false },
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix], resolveProvider: false },
        executeCommandProvider: { commands: Object.values(SERVER_COMMANDS) },
      },
      serverInfo: { name: 'attnscope-language-server', version: '0.1.0' },
    };
  });

  /** Applies the client's `attnscope` settings (pushed, or pulled when the push carries none); re-pulls hints when they changed. */
  async function applySettings(pushed: unknown): Promise<void> {
    let section = (pushed as { attnscope?: { hints?: unknown } } | null | undefined)?.attnscope;
    if (section === undefined && capabilities.workspace?.configuration) {
      section = ((await connection.workspace.getConfiguration('attnscope')) ?? undefined) as { hints?: unknown } | undefined;
    }
    if (section === undefined || section === null) return;
    const next = hintMode(section.hints);
    if (next === hints) return;
    hints = next;
    await hintsOf(documents.all().map((d) => d.uri));
  }
  connection.onDidChangeConfiguration((params) =>
    guard(log, 'didChangeConfiguration', () => void applySettings(params.settings).catch((err: unknown) => log.error(`Could not read the settings: ${String(err)}`))),
  );

  connection.onInitialized(() => {
    if (capabilities.workspace?.workspaceFolders) {
      connection.workspace.onDidChangeWorkspaceFolders(() =>
        guard(log, 'didChangeWorkspaceFolders', () => {
          void connection.workspace.getWorkspaceFolders()
            .then((now) => {
              setWorkspaceRoots((now ?? []).map((f) => uriToPath(f.uri)).filter((p) => p !== null));
              asked.clear();
              prefillWorkspace();
            })
            .catch((err: unknown) => log.error(`Could not read the workspace folders: ${String(err)}`));
        }),
      );
    }
    void applySettings(undefined).catch((err: unknown) => log.error(`Could not read the settings: ${String(err)}`));
    prefillWorkspace();
    if (capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration) {
      void connection.client
        .register(DidChangeWatchedFilesNotification.type, { watchers: [...WATCHED_GLOBS.map((globPattern) => ({ globPattern })), WATCHED_CREATE_DELETE] })
        .catch((err: unknown) => log.error(`Could not watch files: ${String(err)}`));
      // What the client's watcher does not report under the path read (a symlinked folder on its
      // way) the server watches at its real path, asked once per path.
      watcher = new ReadWatcher((path) => guard(log, 'file changed on disk', () => recheckDependents(workspace.fileChanged(path))));
      workspace.onRead = (path) => {
        if (asked.has(path)) return;
        const at = serverWatchedAt(path);
        if (at === null && !existsSync(path)) return; // asked again once it exists
        asked.add(path);
        if (at !== null) watcher?.watch(path, at);
      };
    } else {
      // A client that watches no files for us (Neovim 0.7): a profile would stay stale when its
      // config.json changes on disk. Watch what the analyses read ourselves.
      watcher = new ReadWatcher((path) => guard(log, 'file changed on disk', () => recheckDependents(workspace.fileChanged(path))));
      workspace.onRead = (path) => watcher?.watch(path);
    }
  });

  documents.onDidOpen((e) => {
    if (timingEnabled) timingMark('server', 'didOpen', `${e.document.uri} v${e.document.version} ${e.document.lineCount} lines`);
    guard(log, 'didOpen', () => workspace.opened(e.document.uri));
  });
  documents.onDidChangeContent((e) =>
    guard(log, 'didChange', () => {
      if (timingEnabled) timingMark('server', 'didChange', `${e.document.uri} v${e.document.version}`);
      const uri = e.document.uri;
      scheduler.schedule(uri);
      const path = uriToPath(uri);
      if (path !== null) recheckDependents(workspace.fileChanged(path));
    }),
  );
  documents.onDidClose((e) =>
    guard(log, 'didClose', () => {
      scheduler.clear(e.document.uri);
      recheckDependents(workspace.closed(e.document.uri));
    }),
  );

  connection.onDidChangeWatchedFiles((params) =>
    guard(log, 'didChangeWatchedFiles', () => {
      const uris = new Set<string>();
      for (const change of params.changes) {
        const path = uriToPath(change.uri);
        if (path !== null) for (const u of workspace.fileChanged(path)) uris.add(u);
      }
      recheckDependents([...uris]);
    }),
  );

  connection.onHover((params, token) =>
    runSafe(log, token, 'hover', null, () => {
      const a = workspace.analysis(params.textDocument.uri);
      return a === null ? null : hover(a, params.position);
    }),
  );

  connection.languages.inlayHint.on((params, token) =>
    runSafe(log, token, 'inlayHint', [], () => {
      if (timingEnabled) timingMark('server', 'hints-asked', `${params.textDocument.uri} v${documents.get(params.textDocument.uri)?.version}`);
      const found = workspace.hints(params.textDocument.uri);
      const answer = found === null ? [] : inlayHints(found.analysis, found.hints, params.range, hints);
      if (timingEnabled) timingMark('server', 'hints-answered', `${params.textDocument.uri} ${answer.length} hints`);
      return answer;
    }),
  );

  connection.onCodeLens((params, token) =>
    runSafe(log, token, 'codeLens', [], () => {
      const a = workspace.analysis(params.textDocument.uri);
      return a === null ? [] : codeLenses(a, clientCommands);
    }),
  );

  connection.onCompletion((params, token) =>
    runSafe(log, token, 'completion', [], () => {
      const a = workspace.analysis(params.textDocument.uri);
      return a === null ? [] : completion(a, params.position, params.context?.triggerCharacter);
    }),
  );

  connection.onCodeAction((params, token) =>
    runSafe(log, token, 'codeAction', [], () => {
      const found = workspace.problems(params.textDocument.uri);
      return found === null ? [] : codeActions(found.analysis, found.problems, params);
    }),
  );

  connection.onRequest(ResolveProfileRequest.method, (params: ResolveProfileRequest.Params, token) =>
    runSafe<ResolveProfileRequest.Result>(
      log,
      token,
      'resolveProfile',
      { profile: null, estimate: null, problems: [] },
      () => resolveProfile(workspace, params),
    ),
  );

  // One file at a time, the event loop free between them (200 files not answered before take ~1 s of
  // CPU at load 20, 10-20 ms when answered before: Workspace.closedFileReasons): edits and hint
  // requests of open documents are answered in between.
  connection.onRequest(CannotRunRequest.method, async (params: CannotRunRequest.Params, token): Promise<CannotRunRequest.Result | ResponseError<void>> => {
    const reasons: Array<string | null> = [];
    for (const uri of params.uris) {
      await new Promise((resolve) => setImmediate(resolve));
      if (token.isCancellationRequested) return cancelled();
      try {
        reasons.push(cannotRunOf(workspace, uri, params.job));
      } catch (err) {
        log.error(`cannotRun failed on ${uri}: ${describeError(err)}`);
        reasons.push(null);
      }
    }
    return { reasons };
  });

  connection.onExecuteCommand((params, token) => {
    if (params.command === SERVER_COMMANDS.simulate) return simulateCommand(String(params.arguments?.[0] ?? ''), token);
    return runSafe(log, token, 'executeCommand', null, () => {
      if (params.command !== SERVER_COMMANDS.showEstimate) return null;
      const uri = String(params.arguments?.[0] ?? '');
      const a = workspace.analysis(uri);
      const summary = a === null ? null : estimateSummary(a);
      // A notification (window/showMessage), not the request showInformationMessage sends: nothing to answer.
      void connection.sendNotification(ShowMessageNotification.type, { type: MessageType.Info, message: summary === null ? `AttnScope: no estimate for ${uri} (open it, and see its diagnostics)` : `AttnScope: ${summary}` });
      return a?.estimate ?? null;
    });
  });

  /**
   * SERVER_COMMANDS.simulate: the document's serving simulation by the runner (server/simulate.ts),
   * with work-done progress when the client has it; answers the run's pool (null when it did not
   * finish) and says the outcome with window/showMessage.
   */
  async function simulateCommand(uri: string, token: CancellationToken): Promise<PoolResult | null> {
    const say = (type: MessageType, message: string): void => void connection.sendNotification(ShowMessageNotification.type, { type, message });
    const a = workspace.analysis(uri);
    if (a === null || a.profile === null) {
      say(MessageType.Error, `AttnScope: cannot simulate ${uri}: ${a?.problems.find((p) => p.severity === 'error')?.message ?? 'open it, and see its diagnostics'}`);
      return null;
    }
    if (a.profile.workload === null) {
      say(MessageType.Warning, `AttnScope: ${uri} has no workload to simulate: add a workload: block (requests, arrival_rate, prompt_len, output_len).`);
      return null;
    }
    const progress = capabilities.window?.workDoneProgress ? await connection.window.createWorkDoneProgress().catch(() => null) : null;
    const name = a.path === null ? a.file : basename(a.path);
    const result = await simulateProfile(runnerPath, a.profile, name, token, progress);
    say(result.ok ? MessageType.Info : MessageType.Warning, result.message);
    return result.pool;
  }

  connection.onShutdown(() => {
    scheduler.dispose();
    watcher?.dispose();
    prefill.dispose();
  });

  documents.listen(connection);
  connection.listen();
}
