/**
 * The server ends when its client goes away, also while it works on a huge document (a newcomer
 * found one outliving a window reload as an orphan, parent PID 1, burning CPU for 15 minutes).
 * Each test starts the bundled server as a client does, sends it a 100,000-label config.json
 * (5 MB) to analyse, takes the client away at once, and waits for the process to end: its 'exit'
 * event, or the end of a pipe only it and its dead parent held. No sleeps.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fork, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import {
  createProtocolConnection,
  DidOpenTextDocumentNotification,
  InitializedNotification,
  InitializeRequest,
  IPCMessageReader,
  IPCMessageWriter,
  StreamMessageReader,
  StreamMessageWriter,
  type ProtocolConnection,
} from 'vscode-languageserver-protocol/node';
import { clientProcessId } from '../../server/parentWatch';
import { labelledConfig } from '../../scripts/bench-config-size';
import { tempDir } from '../fixtures/tmp';
import { root, serverBundle } from './harness';

const HUGE = labelledConfig(100_000);

/** initialize, initialized, then didOpen of the huge config; resolves once the open is sent. */
async function openHuge(connection: ProtocolConnection): Promise<void> {
  connection.listen();
  await connection.sendRequest(InitializeRequest.type, { processId: null, rootUri: null, workspaceFolders: null, capabilities: {}, initializationOptions: { validationDelayMs: 0 } });
  await connection.sendNotification(InitializedNotification.type, {});
  await connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri: 'file:///huge/config.json', languageId: 'json', version: 1, text: HUGE } });
}

/** True when no process `pid` runs (gone, or a zombie no one has reaped yet). */
function notRunning(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return true;
  const text = readFileSync(stat, 'utf8');
  return text.slice(text.lastIndexOf(')') + 2).startsWith('Z');
}

test('--clientProcessId is read in both spellings vscode-languageserver takes; anything else is none', () => {
  assert.equal(clientProcessId(['node', 'server.js', '--node-ipc', '--clientProcessId=4242']), 4242);
  assert.equal(clientProcessId(['node', 'server.js', '--clientProcessId', '77', '--stdio']), 77);
  assert.equal(clientProcessId(['node', 'server.js', '--stdio']), null);
  assert.equal(clientProcessId(['node', 'server.js', '--clientProcessId=abc']), null);
});

test('started as VS Code starts it (--node-ipc --clientProcessId): the client process ending ends the busy server', async () => {
  const client = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)'], { stdio: 'ignore' });
  await once(client, 'spawn');
  const server = fork(await serverBundle(), ['--node-ipc', `--clientProcessId=${client.pid}`], { stdio: ['pipe', 'pipe', 'pipe', 'ipc'] });
  const exited = once(server, 'exit');
  try {
    await openHuge(createProtocolConnection(new IPCMessageReader(server), new IPCMessageWriter(server)));
    client.kill('SIGKILL');
    const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
    assert.ok(code !== null || signal !== null);
  } finally {
    client.kill('SIGKILL');
    server.kill('SIGKILL');
  }
});

test('its parent killed (a window reload): the busy server, now an orphan, ends', async () => {
  // The parent stands in for the extension host: it forks the server as vscode-languageclient
  // does, the server's stderr being the parent's, a pipe to this test. The pipe ends when both
  // processes that hold it are gone.
  const dir = tempDir('attnscope-lifetime-');
  const hugePath = join(dir, 'config.json');
  writeFileSync(hugePath, HUGE);
  const parentSource = `
    const { fork } = require('node:child_process');
    const { readFileSync } = require('node:fs');
    const p = require('vscode-languageserver-protocol/node');
    const server = fork(process.argv[1], ['--node-ipc', '--clientProcessId=' + process.pid], { stdio: ['pipe', 'pipe', 'inherit', 'ipc'] });
    const c = p.createProtocolConnection(new p.IPCMessageReader(server), new p.IPCMessageWriter(server));
    c.listen();
    (async () => {
      await c.sendRequest(p.InitializeRequest.type, { processId: process.pid, rootUri: null, workspaceFolders: null, capabilities: {}, initializationOptions: { validationDelayMs: 0 } });
      await c.sendNotification(p.InitializedNotification.type, {});
      await c.sendNotification(p.DidOpenTextDocumentNotification.type, { textDocument: { uri: 'file:///huge/config.json', languageId: 'json', version: 1, text: readFileSync(process.argv[2], 'utf8') } });
      // IPC keeps order: once this small message is written, the document before it is too.
      server.send({ jsonrpc: '2.0', method: '$/attnscope/written' }, () => process.stdout.write('busy ' + server.pid + '\\n'));
    })();`;
  const parent = spawn(process.execPath, ['-e', parentSource, await serverBundle(), hugePath], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let serverPid = 0;
  try {
    parent.stdout.setEncoding('utf8');
    let out = '';
    for await (const chunk of parent.stdout) {
      out += chunk as string;
      const m = /busy (\d+)\n/.exec(out);
      if (m) {
        serverPid = Number(m[1]);
        break;
      }
    }
    assert.ok(serverPid > 0, `the stand-in parent did not start the server: ${out}`);
    const pipeClosed = once(parent.stderr, 'close');
    parent.stderr.resume();
    parent.kill('SIGKILL');
    await pipeClosed;
    assert.ok(notRunning(serverPid), `server ${serverPid} still runs`);
  } finally {
    parent.kill('SIGKILL');
    if (serverPid > 0 && !notRunning(serverPid)) process.kill(serverPid, 'SIGKILL');
  }
});

test('started over stdio (as Neovim starts it): stdin closed while it works on a huge document ends it', async () => {
  const server = spawn(process.execPath, [await serverBundle(), '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = once(server, 'exit');
  try {
    await openHuge(createProtocolConnection(new StreamMessageReader(server.stdout), new StreamMessageWriter(server.stdin)));
    server.stdin.end();
    const [code] = (await exited) as [number | null];
    // vscode-languageserver: stdin's end without a shutdown request exits 1.
    assert.equal(code, 1);
  } finally {
    server.kill('SIGKILL');
  }
});
