/**
 * Entry of dist/server.js. The transport comes from the command line, as vscode-languageserver
 * reads it: `--stdio`, `--node-ipc` or `--socket=PORT`; `--clientProcessId=PID` (which VS Code's client
 * passes) and the parent process are watched from a worker (parentWatch.ts). Everything else is in startServer.
 */
import { ProposedFeatures, createConnection } from 'vscode-languageserver/node';
import { clientProcessId, watchParent } from './parentWatch';
import { describeError } from './safe';
import { startServer } from './server';

const connection = createConnection(ProposedFeatures.all);

// A stray failure must show in the log and never end the server (with --stdio, stdout is the
// protocol channel: log to stderr only).
process.on('unhandledRejection', (reason) => process.stderr.write(`attnscope-server: unhandledRejection: ${describeError(reason)}\n`));
process.on('uncaughtException', (err) => process.stderr.write(`attnscope-server: uncaughtException: ${describeError(err)}\n`));

// The client going away ends the server even mid-analysis (parentWatch.ts).
watchParent(clientProcessId(process.argv));

startServer(connection);
