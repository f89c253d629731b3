/**
 * The extension's one context object: owns the log, the status item, the language client,
 * the dashboard and the benchmark in flight. activate() builds it; commands receive it.
 */
import * as vscode from 'vscode';
import { CodeLensRequest, DidChangeTextDocumentNotification, InlayHintRequest, LanguageClient, State, TransportKind, type LanguageClientOptions, type ProvideInlayHintsSignature, type ServerOptions } from 'vscode-languageclient/node';
import { FILE_GLOBS } from '../core/config/fileKinds';
import { timingEnabled, timingMark } from '../core/timingLog';
import { CannotRunRequest, Commands, HintsChangedNotification, ResolveProfileRequest } from '../core/protocol/lsp';
import type { PickJob } from '../core/validate';
import type { RunnerJob } from '../core/runnerProcess';
import { affectsSettings, readMachineSettingsWritten, readSettingProblems, readSettings, type Settings } from './config';
import { ignoredMachineSettings, type DeclaredSetting } from './settingDefaults';
import { Dashboard, type DashboardHost } from './dashboard';
import { DeferredSync, staleDiagnosticMessage } from './deferredSync';
import { hiddenHintNotes, hintsHiddenWhy } from './hiddenHints';
import { TypingHints } from './typingHints';
import type { HistoryPlace } from './history';
import { StatusItem } from './status';

/** Files the language server reads: profiles and HuggingFace configs. */
export const DOCUMENT_SELECTOR = FILE_GLOBS.map((pattern) => ({ scheme: 'file', pattern }));

/** The benchmark, simulation or sweep in flight, as the context sees it (extension/runInFlight.ts RunInFlight: benchmark.ts BenchmarkRun, sweep.ts SweepRun). */
export interface ActiveRun {
  /** Display name: the profile or config file name. */
  readonly name: string;
  /** What it runs: a benchmark ('bench'), a serving simulation ('simulate') or a profile's sweep ('sweep'). */
  readonly job: RunnerJob;
  /** Ends the runner (SIGTERM, then SIGKILL); a benchmark's partial run is still saved, a sweep's finished points stay in its folder. */
  cancel(): void;
  /**
   * For deactivate() (a window reload or close ends this extension host, the runner with it):
   * saves a benchmark's run so far synchronously, marked as interrupted, then ends the runner.
   */
  interrupt(): void;
}

/**
 * The code lenses of an untrusted workspace: its run lenses (benchmark, simulation at the top,
 * sweep on the `sweep:` key), which the commands would refuse there, become one lens on each of
 * their lines that says why and opens the trust editor, as VS Code's workspace trust guide asks
 * of features that are off until trust (show them disabled, with the reason); the others stay.
 */
export function untrustedLenses(lenses: vscode.CodeLens[]): vscode.CodeLens[] {
  const runs: string[] = [Commands.runBenchmark, Commands.runSimulation, Commands.runSweep];
  const isRun = (l: vscode.CodeLens) => runs.includes(l.command?.command ?? '');
  const kept = lenses.filter((l) => !isRun(l));
  if (kept.length === lenses.length) return lenses;
  const lines = new Map<number, vscode.Range>();
  for (const l of lenses) if (isRun(l) && !lines.has(l.range.start.line)) lines.set(l.range.start.line, l.range);
  const why = [...lines.values()].map(
    (at) =>
      new vscode.CodeLens(at, {
        title: '$(shield) Runs need a trusted workspace',
        command: 'workbench.trust.manage',
        tooltip: 'AttnScope runs benchmarks, simulations and sweeps (native code) only in trusted workspaces; validation, hints and memory estimates work here. Click to manage workspace trust.',
      }),
  );
  return [...why, ...kept];
}

/**
 * `d` with its message marked as of an older text (deferredSync.ts staleDiagnosticMessage): a copy of
 * the same class, so the language client's own fields (the `data` quick fixes find their problem
 * by) go with it.
 */
function markedStale(d: vscode.Diagnostic): vscode.Diagnostic {
  const copy = Object.assign(Object.create(Object.getPrototypeOf(d) as object) as vscode.Diagnostic, d);
  copy.message = staleDiagnosticMessage(d.message);
  return copy;
}

export class Ctx implements vscode.Disposable, DashboardHost {
  readonly log: vscode.LogOutputChannel;
  readonly status: StatusItem;
  readonly dashboard: Dashboard;
  /** The benchmark, simulation or sweep in flight; at most one. */
  activeRun: ActiveRun | null = null;
  /** Where the runner refused a sweep (its file:line:col, extension/sweep.ts); a file's are cleared when it is edited or swept again. */
  readonly sweepProblems: vscode.DiagnosticCollection;
  /** The inlay hints of a file VS Code opens as large, which it does not draw (extension/hiddenHints.ts), said as diagnostics. */
  private readonly hiddenHints: vscode.DiagnosticCollection;
  private client: LanguageClient | null = null;
  /** Inlay hints while typing: an edited line's old figure withdrawn at once, its new one asked meanwhile (extension/typingHints.ts). */
  private readonly typingHints = new TypingHints<vscode.InlayHint, vscode.Range>(
    {
      lineOf: (h) => h.position.line,
      moved: (h, line) => Object.assign(new vscode.InlayHint(h.position.with(line), h.label, h.kind), { tooltip: h.tooltip, paddingLeft: h.paddingLeft, paddingRight: h.paddingRight, textEdits: h.textEdits }),
      covers: (outer, inner) => outer.contains(inner),
      inRange: (h, range) => range.contains(h.position),
    },
    (key) => {
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
      if (doc !== undefined) this.client?.getFeature(InlayHintRequest.method).getProvider(doc)?.onDidChangeInlayHints.fire();
    },
  );
  /** Huge documents' edits, sent whole once the typing stops (extension/deferredSync.ts). */
  private readonly deferredSync = new DeferredSync<vscode.TextDocument>(
    async (doc) => {
      const client = this.client;
      if (client === null || doc.isClosed) return;
      try {
        if (timingEnabled) timingMark('ext', 'whole-send', `${doc.uri.fsPath} v${doc.version}`);
        await client.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri: client.code2ProtocolConverter.asUri(doc.uri), version: doc.version }, contentChanges: [{ text: doc.getText() }] });
        if (timingEnabled) timingMark('ext', 'whole-sent', `${doc.uri.fsPath} v${doc.version}`);
      } catch (err) {
        this.log.warn(`language server: could not send ${vscode.workspace.asRelativePath(doc.uri)}: ${err instanceof Error ? err.message : String(err)}`);
      }
    },
    (doc) => doc.offsetAt(doc.lineAt(doc.lineCount - 1).range.end),
  );
  private serverError: string | null = null;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(readonly extension: vscode.ExtensionContext) {
    this.log = vscode.window.createOutputChannel('AttnScope', { log: true });
    this.status = new StatusItem();
    this.dashboard = new Dashboard(this);
    this.sweepProblems = vscode.languages.createDiagnosticCollection('attnscope-sweep');
    this.hiddenHints = vscode.languages.createDiagnosticCollection('attnscope-hidden-hints');
    this.disposables.push(this.log, this.status, this.dashboard, this.sweepProblems, this.hiddenHints);
    this.disposables.push(vscode.workspace.onDidCloseTextDocument((d) => this.hiddenHints.delete(d.uri)));
    this.disposables.push(vscode.workspace.onDidCloseTextDocument((d) => this.typingHints.forget(d.uri.toString())));
    this.disposables.push(
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length === 0) return;
        const edits = e.contentChanges.map((c) => ({ startLine: c.range.start.line, endLine: c.range.end.line, insertedLines: c.text.split('\n').length - 1 }));
        this.typingHints.edited(e.document.uri.toString(), e.document.version, edits);
      }),
    );
    // When a document (any, ours or not) reached this extension host, for scripts/bench-editor.ts.
    if (timingEnabled) {
      this.disposables.push(vscode.workspace.onDidOpenTextDocument((d) => timingMark('ext', 'document-opened', `${d.uri.fsPath} v${d.version} ${d.lineCount} lines`)));
      this.disposables.push(vscode.workspace.onDidChangeTextDocument((e) => e.contentChanges.length > 0 && timingMark('ext', 'document-changed', `${e.document.uri.fsPath} v${e.document.version}`)));
    }
    this.disposables.push(vscode.workspace.onDidChangeTextDocument((e) => e.contentChanges.length > 0 && this.sweepProblems.delete(e.document.uri)));
    // What is in force, in the log: what a user reads when a run did not do what they set (and
    // what the e2e harness waits for after it changes a setting).
    this.logSettings('at start');
    this.disposables.push(vscode.workspace.onDidChangeConfiguration((e) => affectsSettings(e) && this.logSettings('changed')));
    void this.dashboard.showNoticeFromLastWindow();
  }

  /**
   * Logs the settings in force (window scope), one line each, `setting attnscope.<key> = <JSON
   * value> (<why>)`: all of them at start and on every change of one, so the last lines say all.
   */
  private logSettings(why: string): void {
    for (const [key, value] of Object.entries(readSettings())) this.log.info(`setting attnscope.${key} = ${JSON.stringify(value)} (${why})`);
    const declared = (this.extension.extension.packageJSON as { contributes?: { configuration?: { properties?: Record<string, DeclaredSetting> } } }).contributes?.configuration?.properties ?? {};
    const problems = readSettingProblems(declared);
    for (const p of problems) this.log.warn(p);
    // Said once per distinct set, not on every unrelated change of another setting.
    const said = problems.join('\n');
    if (problems.length > 0 && said !== this.settingProblemsSaid) {
      void vscode.window.showWarningMessage(problems.length === 1 ? `AttnScope: ${problems[0]}.` : `AttnScope: ${problems.length} settings are not used as written (details in the AttnScope output): ${problems[0]}; ...`);
    }
    this.settingProblemsSaid = said;
    void this.sayIgnoredMachineSettings();
  }

  /** The setting problems last shown, so that an unchanged set is not shown again. */
  private settingProblemsSaid = '';

  /** The ignored machine settings already said (settingDefaults.ts ignoredMachineSettings), so that each is said once a window. */
  private readonly ignoredSaid = new Set<string>();

  /**
   * Says once a window, in the log and a warning with Open settings, each machine-scoped setting
   * (runnerPath, nodePath) written where VS Code does not read it (config.ts
   * readMachineSettingsWritten, settingDefaults.ts ignoredMachineSettings): at start, on a change
   * of a setting, and before every run (an edit of a file VS Code ignores raises no change event).
   */
  async sayIgnoredMachineSettings(): Promise<void> {
    const declared = (this.extension.extension.packageJSON as { contributes?: { configuration?: { properties?: Record<string, DeclaredSetting> } } }).contributes?.configuration?.properties ?? {};
    // <user data>/User/globalStorage/<extension> (or User/profiles/<id>/globalStorage/<extension>): the profile's settings.json two folders up.
    const userSettings = vscode.Uri.joinPath(this.extension.globalStorageUri, '..', '..', 'settings.json');
    const fresh = ignoredMachineSettings({ ...readSettings() }, await readMachineSettingsWritten(declared, userSettings), declared).filter((m) => !this.ignoredSaid.has(m));
    for (const m of fresh) {
      this.ignoredSaid.add(m);
      this.log.warn(m);
      const open = 'Open settings';
      void vscode.window.showWarningMessage(`AttnScope: ${m}.`, open).then((pick) => {
        if (pick === open) void vscode.commands.executeCommand('workbench.action.openSettings', 'attnscope.runnerPath attnscope.nodePath');
      });
    }
  }

  get extensionUri(): vscode.Uri {
    return this.extension.extensionUri;
  }

  get storageUri(): vscode.Uri | undefined {
    return this.extension.storageUri;
  }

  get version(): string {
    return (this.extension.extension.packageJSON as { version?: string }).version ?? '0.0.0';
  }

  settings(scope?: vscode.ConfigurationScope): Settings {
    return readSettings(scope);
  }

  /**
   * Starts the language server with the first profile or config.json document (DOCUMENT_SELECTOR)
   * that is open now or opens later, not at activation: the extension also activates on every
   * YAML and JSON file (package.json onLanguage:yaml / onLanguage:json, so that a profile opened
   * after VS Code's workspaceContains search timed out or missed still gets its hints), and a
   * package.json or a CI workflow should not cost a Node process. Commands that need the server
   * start it themselves (server()).
   */
  startServerWhenServed(): void {
    const served = (d: vscode.TextDocument) => vscode.languages.match(DOCUMENT_SELECTOR, d) > 0;
    const first = vscode.workspace.textDocuments.find(served);
    if (first) {
      this.log.info(`language server: starting for ${vscode.workspace.asRelativePath(first.uri)}`);
      void this.ensureServer();
      return;
    }
    this.log.info('language server: not started yet; it starts when a profile or config.json opens');
    const opened = vscode.workspace.onDidOpenTextDocument((d) => {
      if (!served(d) || this.serverStart) return;
      opened.dispose();
      this.log.info(`language server: starting for ${vscode.workspace.asRelativePath(d.uri)}`);
      void this.ensureServer();
    });
    this.disposables.push(opened);
  }

  /** The one start of the language server; a failed start is shown once, with the log. */
  private serverStart: Promise<void> | null = null;

  /**
   * Starts the language server once (later calls get the same start); resolves when it runs or
   * its start failed (shown, with the log, and kept for server() to say).
   */
  ensureServer(): Promise<void> {
    this.serverStart ??= this.startServer().catch((err: unknown) => {
      void this.showError(`AttnScope: the language server did not start: ${err instanceof Error ? err.message : String(err)}`);
    });
    return this.serverStart;
  }

  /** Starts the language server (dist/server.js over Node IPC). Rejects with the reason when it cannot start. */
  private async startServer(): Promise<void> {
    const module = vscode.Uri.joinPath(this.extension.extensionUri, 'dist', 'server.js').fsPath;
    const serverOptions: ServerOptions = {
      run: { module, transport: TransportKind.ipc },
      debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6009'] } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: DOCUMENT_SELECTOR,
      outputChannel: this.log,
      traceOutputChannel: this.log,
      // The server reads attnscope.hints from these (workspace/didChangeConfiguration on every change).
      synchronize: { configurationSection: 'attnscope' },
      // This client implements the attnscope.* commands, so code lenses may name them (server/lenses.ts);
      // it takes attnscope/hintsChanged, naming the documents whose hints changed, in place of the
      // refresh of every editor's (below).
      initializationOptions: { clientCommands: true, hintsChanged: true },
      middleware: {
        // A huge document's edits wait for the typing to stop (deferredSync.ts); its requests wait for them.
        didChange: (event, next) => {
          if (timingEnabled) timingMark('ext', 'didChange', `${event.document.uri.fsPath} v${event.document.version}${this.deferredSync.waiting(event.document) ? ' (behind held edits)' : ''}`);
          return this.deferredSync.didChange(event, next);
        },
        didOpen: async (document, next) => {
          if (timingEnabled) timingMark('ext', 'didOpen', `${document.uri.fsPath} v${document.version} ${document.lineCount} lines`);
          await next(document);
          if (timingEnabled) timingMark('ext', 'didOpen-sent', document.uri.fsPath);
        },
        didClose: (document, next) => {
          this.deferredSync.drop(document);
          return next(document);
        },
        provideHover: async (document, position, token, next) => {
          await this.deferredSync.settled(document);
          return next(document, position, token);
        },
        provideCompletionItem: async (document, position, context, token, next) => {
          await this.deferredSync.settled(document);
          return next(document, position, context, token);
        },
        provideCodeActions: async (document, range, context, token, next) => {
          await this.deferredSync.settled(document);
          return next(document, range, context, token);
        },
        provideCodeLenses: async (document, token, next) => {
          await this.deferredSync.settled(document);
          const lenses = await next(document, token);
          return lenses && !vscode.workspace.isTrusted ? untrustedLenses(lenses) : lenses;
        },
        // A file VS Code opens as large draws no inlay hints: the whole file's are said as diagnostics instead.
        provideInlayHints: async (document, range, token, next) => {
          if (!timingEnabled) return this.inlayHints(document, range, token, next);
          timingMark('ext', 'hints-asked', `${document.uri.fsPath} v${document.version} lines ${range.start.line}-${range.end.line}`);
          const hints = await this.inlayHints(document, range, token, next);
          timingMark('ext', 'hints-answered', `${document.uri.fsPath} v${document.version} ${hints?.length ?? 'no'} hints${token.isCancellationRequested ? ' (cancelled)' : ''}`);
          return hints;
        },
        // Diagnostics that come while a huge document's edits wait are of an older text: marked so.
        handleDiagnostics: (uri, diagnostics, next) => {
          if (timingEnabled) timingMark('ext', 'diagnostics', `${uri.fsPath} ${diagnostics.length}`);
          next(uri, this.deferredSync.waiting({ uri }) ? diagnostics.map(markedStale) : diagnostics);
        },
      },
    };
    const client = new LanguageClient('attnscope', 'AttnScope', serverOptions, clientOptions);
    this.client = client;
    this.deferredSync.onSent = (doc) => client.getFeature(InlayHintRequest.method).getProvider(doc)?.onDidChangeInlayHints.fire();
    // The documents whose hints changed with no edit of theirs (a config.json they read typed in):
    // VS Code then asks again for every visible editor's hints, as onDidChangeInlayHints names no
    // document; typingHints.ts answers those not named from their last answer, without the server.
    this.disposables.push(
      client.onNotification(HintsChangedNotification.method, (p: HintsChangedNotification.Params) => {
        const keys = p.uris.map((u) => client.protocol2CodeConverter.asUri(u).toString());
        this.typingHints.serverChanged(keys);
        const doc = vscode.workspace.textDocuments.find((d) => keys.includes(d.uri.toString()));
        if (doc !== undefined) client.getFeature(InlayHintRequest.method).getProvider(doc)?.onDidChangeInlayHints.fire();
      }),
    );
    // A huge document's first held edit: the diagnostics it shows are of the text before; the server's next ones replace them.
    this.deferredSync.onHeld = (doc) => {
      const shown = client.diagnostics?.get(doc.uri) ?? [];
      if (shown.length > 0) client.diagnostics?.set(doc.uri, shown.map(markedStale));
    };
    this.disposables.push(
      client.onDidChangeState((e) => {
        if (e.newState === State.Running) {
          this.serverError = null;
          this.status.setServer({ kind: 'ready' });
        } else if (e.newState === State.Starting) {
          this.status.setServer({ kind: 'starting' });
        } else {
          this.status.setServer({ kind: 'stopped', reason: this.serverError ?? 'the server process exited' });
        }
      }),
    );
    // Trust granted: the lenses again, with their runs (the client's provider asks the server anew).
    this.disposables.push(
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        const lenses = client.getFeature(CodeLensRequest.method);
        for (const editor of vscode.window.visibleTextEditors) lenses.getProvider(editor.document)?.onDidChangeCodeLensEmitter.fire();
      }),
    );
    this.status.setServer({ kind: 'starting' });
    try {
      await client.start();
    } catch (err) {
      this.serverError = err instanceof Error ? err.message : String(err);
      this.status.setServer({ kind: 'failed', reason: this.serverError });
      throw err;
    }
  }

  /**
   * The inlay-hint middleware: none for a huge document whose edits wait; in a file VS Code opens
   * as large (which draws none), the whole file's hints said as diagnostics (hiddenHints.ts).
   */
  private async inlayHints(document: vscode.TextDocument, range: vscode.Range, token: vscode.CancellationToken, next: ProvideInlayHintsSignature): Promise<vscode.InlayHint[] | null | undefined> {
    // A huge document whose edits wait: none (the last version's figures are withdrawn, not drawn as
    // current); the client asks again once its text is sent (deferredSync.onSent, below).
    if (this.deferredSync.waiting(document)) {
      this.hiddenHints.delete(document.uri);
      return [];
    }
    const end = document.lineAt(document.lineCount - 1).range.end;
    const why = hintsHiddenWhy(document.lineCount, document.offsetAt(end), vscode.workspace.getConfiguration('editor', document).get<boolean>('largeFileOptimizations', true));
    if (why === null) {
      this.hiddenHints.delete(document.uri);
      // The server's answer asked behind an instant one (typingHints.ts) outlives the request: VS Code cancels that one's token when it asks again.
      return this.typingHints.provide(document.uri.toString(), document.version, range, (background) => Promise.resolve(next(document, range, background ? new vscode.CancellationTokenSource().token : token)));
    }
    const hints = await next(document, new vscode.Range(new vscode.Position(0, 0), end), token);
    if (hints === null || hints === undefined || token.isCancellationRequested) return hints;
    const labelOf = (h: vscode.InlayHint): string => (typeof h.label === 'string' ? h.label : h.label.map((p) => p.value).join(''));
    const notes = hiddenHintNotes(hints.map((h) => ({ line: h.position.line, character: h.position.character, label: labelOf(h) })), why, (n) => document.lineAt(n).text);
    this.hiddenHints.set(
      document.uri,
      notes.map((n) => {
        const d = new vscode.Diagnostic(new vscode.Range(n.line, n.from, n.line, n.to), n.message, vscode.DiagnosticSeverity.Information);
        d.source = 'AttnScope';
        return d;
      }),
    );
    return hints;
  }

  /**
   * The language server when it runs (started now if no profile had opened yet, and waited
   * for), else a sentence saying why it does not, for commands that need it to show instead of
   * failing silently.
   */
  async server(): Promise<{ client: LanguageClient } | { whyNot: string }> {
    await this.ensureServer();
    if (this.client?.state === State.Running) return { client: this.client };
    if (this.serverError) return { whyNot: `the AttnScope language server failed to start (${this.serverError}); see the log` };
    return { whyNot: 'the AttnScope language server has stopped; reload the window to restart it (details in the log)' };
  }

  /** Asks the server for the document's resolved Profile and Estimate from its current (maybe unsaved) text. */
  async resolveProfile(client: LanguageClient, uri: vscode.Uri): Promise<ResolveProfileRequest.Result> {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (open) await this.deferredSync.flush(open);
    return client.sendRequest<ResolveProfileRequest.Result>(ResolveProfileRequest.method, { uri: uri.toString() } satisfies ResolveProfileRequest.Params);
  }

  /**
   * Why a command of `job` cannot run each of `uris`, from the server in one request
   * (attnscope/cannotRun; the open ones from their current text, their deferred edits sent first):
   * null for each it runs. Rejects with the request's error (cancelled through `token`).
   */
  async cannotRun(client: LanguageClient, uris: readonly vscode.Uri[], job: PickJob, token: vscode.CancellationToken): Promise<Array<string | null>> {
    const wanted = new Set(uris.map((u) => u.toString()));
    for (const open of vscode.workspace.textDocuments) if (wanted.has(open.uri.toString())) await this.deferredSync.flush(open);
    const result = await client.sendRequest<CannotRunRequest.Result>(CannotRunRequest.method, { uris: uris.map((u) => u.toString()), job } satisfies CannotRunRequest.Params, token);
    return result.reasons;
  }

  /** Folder runs are saved in, for a run of `source` (the history folder setting, relative to its workspace folder). */
  historyFolder(source?: vscode.Uri): vscode.Uri {
    const setting = this.settings(source).historyFolder;
    const folder = (source && vscode.workspace.getWorkspaceFolder(source)) ?? vscode.workspace.workspaceFolders?.[0];
    if (setting.startsWith('/') || /^[A-Za-z]:[\\/]/.test(setting)) return vscode.Uri.file(setting);
    if (folder) return vscode.Uri.joinPath(folder.uri, setting);
    return vscode.Uri.joinPath(this.extension.globalStorageUri, 'runs');
  }

  /**
   * Every folder runs are saved in: each workspace folder's history folder (historyFolder), in
   * the workspace's order, labelled with the folder's name when there are several; without a
   * workspace, the one historyFolder() gives. History, Compare and Export read all of them, so
   * a run saved for a profile of any folder is listed and found.
   */
  historyPlaces(): HistoryPlace[] {
    const folders = vscode.workspace.workspaceFolders ?? [];
    if (folders.length === 0) return [{ path: this.historyFolder().fsPath }];
    return folders.map((f) => ({ path: this.historyFolder(f.uri).fsPath, ...(folders.length > 1 ? { label: f.name } : {}) }));
  }

  /**
   * Where `attnscope sweep` writes its reports: <folder>/.attnscope/sweeps of each workspace
   * folder (Run sweep runs in its profile's folder, extension/runLaunch.ts), labelled with the
   * folder's name when there are several; empty without a workspace.
   */
  sweepsFolders(): Array<{ uri: vscode.Uri; label?: string }> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    return folders.map((f) => ({ uri: vscode.Uri.joinPath(f.uri, '.attnscope', 'sweeps'), ...(folders.length > 1 ? { label: f.name } : {}) }));
  }

  /** Shows an error with an "Open log" button. */
  async showError(message: string): Promise<void> {
    this.log.error(message);
    const choice = await vscode.window.showErrorMessage(message, 'Open log');
    if (choice === 'Open log') this.log.show(true);
  }

  /** Saves a run in flight first, synchronously (ActiveRun.interrupt): the host may not wait for what follows. */
  async dispose(): Promise<void> {
    this.activeRun?.interrupt();
    for (const d of this.disposables.splice(0)) d.dispose();
    this.deferredSync.dispose();
    if (this.client) await this.client.stop().catch(() => undefined);
  }
}
