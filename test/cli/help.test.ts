/**
 * `attnscope help <command>` is `<command> --help`, and each command's --help ends with one or two
 * example command lines that run on the shipped examples/ (s40 newcomer 16: no --help showed an
 * example, and `help simulate` printed the global usage). Through the built dist/runner.js.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { EXAMPLES } from '../../runner/help';
import { tempDir } from '../fixtures/tmp';

const root = join(__dirname, '..', '..');
const runner = join(root, 'dist', 'runner.js');
const COMMANDS = ['bench', 'estimate', 'simulate', 'trace', 'sweep', 'merge', 'submit', 'vllm-log'];

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [runner, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('attnscope help <command> prints <command> --help; help of no command is the usage, of an unknown one an error (exit 2)', () => {
  for (const command of COMMANDS) {
    const help = cli(['help', command]);
    assert.equal(help.code, 0, command);
    assert.equal(help.stdout, cli([command, '--help']).stdout, command);
    assert.match(help.stdout, new RegExp(`^usage:\\n {2}attnscope ${command} `), command);
  }
  assert.equal(cli(['help']).stdout, cli(['--help']).stdout);
  // trace's editor-only --profile-keys is not in its help (s48 newcomer L9), and still works: a BurstGPT filter on a JSONL trace names the profile's key.
  const trace = cli(['trace', '--help']).stdout;
  assert.doesNotMatch(trace, /profile-keys/);
  assert.match(trace, /--trace-log-type T/);
  const keyed = cli(['trace', join(root, 'examples', 'chat-trace.jsonl'), '--trace-model', 'x', '--profile-keys']);
  assert.equal(keyed.code, 2, keyed.stderr);
  assert.match(keyed.stderr, /workload\.trace_model/);
  const bogus = cli(['help', 'simulat']);
  assert.equal(bogus.code, 2);
  assert.equal(bogus.stderr, "attnscope: unknown command 'simulat': did you mean simulate? (see attnscope --help)\n");
});

test("each command's --help ends with one or two examples, and each runs (exit 0) where the shipped examples/ folder is", () => {
  // A copy of examples/ in a fresh folder, so that the examples' own outputs (pages/, k8s/) land there,
  // and `attnscope` on the PATH as the built runner.
  const dir = tempDir('attnscope-help-');
  cpSync(join(root, 'examples'), join(dir, 'examples'), { recursive: true });
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'attnscope'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(runner)} "$@"\n`);
  chmodSync(join(bin, 'attnscope'), 0o755);
  let wrapped = 0;
  for (const command of COMMANDS) {
    const help = cli([command, '--help']).stdout;
    // An example is a line `  attnscope ...`, and where it is wrapped, lines ending in ' \' each continued on an indented line.
    const [, block] = /\n\nexamples \(run where the shipped examples\/ folder is, e\.g\. a checkout of the repository\):\n((?: {2}attnscope (?:.* \\\n {3,}\S)*.*\n)+)$/.exec(help) ?? [];
    assert.ok(block, `${command} --help ends with no examples:\n${help}`);
    const examples = block.trimEnd().split(/\n(?= {2}attnscope )/);
    assert.ok(examples.length >= 1 && examples.length <= 2, command);
    for (const [i, example] of examples.entries()) {
      // Joined at each ' \' + newline + indent (what the shell reads), it is the command as written (runner/help.ts EXAMPLES).
      assert.equal(example.trim().replace(/ \\\n +/g, ' '), EXAMPLES[command]![i], command);
      if (example.includes('\n')) wrapped++;
      // Run as printed, continuation lines and all: what a copy-paste into a shell runs.
      const r = spawnSync('/bin/sh', ['-c', example], { cwd: dir, encoding: 'utf8', timeout: 300_000, env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
      assert.equal(r.status, 0, `${example}\n${r.stderr}`);
      assert.ok(r.stdout.length > 0, example);
    }
  }
  // sweep's --max-rate, submit's and vllm-log's examples are 104 to 148 columns written out: wrapped.
  assert.equal(wrapped, 3);
  // What the examples wrote beside examples/ (pages/, pages.json, k8s/, rates/) is what they leave
  // in a checkout: each must be one the repository's .gitignore covers (s46 newcomer46 L2: all four
  // showed in `git status` as untracked). git check-ignore --no-index reads .gitignore, not the index.
  const written = readdirSync(dir).filter((name) => name !== 'examples' && name !== 'bin');
  assert.deepEqual(written.sort(), ['k8s', 'pages', 'pages.json', 'rates']);
  for (const name of written) {
    const r = spawnSync('git', ['check-ignore', '--no-index', '-q', name], { cwd: root });
    assert.equal(r.status, 0, `${name}, written by a --help example, is not in .gitignore: it would show in git status`);
  }
});

test('every --help wraps its usage, flag and example lines at 100 columns', () => {
  // s47 newcomer LOW-8: sweep --help's --max-rate line was 383 columns, trace's usage line 202; s48: the
  // examples ran to 148 (submit's), now continued with ' \' (the test above runs them as printed).
  for (const command of ['', 'bench', 'estimate', 'simulate', 'trace', 'sweep', 'merge', 'submit', 'vllm-log']) {
    const r = spawnSync(process.execPath, [runner, ...(command ? [command] : []), '--help'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(r.stdout.split('\n').filter((l) => l.length > 100), [], `attnscope ${command} --help`);
  }
});

test('--events says what it does for a user, not "the editor\'s door" (s51 nc-cli #19)', () => {
  for (const command of ['bench', 'simulate', 'sweep']) {
    const help = cli([command, '--help']).stdout.replace(/\n {2,}/g, ' ');
    assert.doesNotMatch(help, /door/, command);
    assert.match(help, /--events .*for a program that drives the (run|sweep), as the editor does/, command);
  }
});
