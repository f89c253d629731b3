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
  for (const command of COMMANDS) {
    const help = cli([command, '--help']).stdout;
    const [, block] = /\n\nexamples \(run where the shipped examples\/ folder is, e\.g\. a checkout of the repository\):\n((?: {2}attnscope .*\n)+)$/.exec(help) ?? [];
    assert.ok(block, `${command} --help ends with no examples:\n${help}`);
    const lines = block.trimEnd().split('\n').map((l) => l.trim());
    assert.ok(lines.length >= 1 && lines.length <= 2, command);
    for (const line of lines) {
      const r = spawnSync('/bin/sh', ['-c', line], { cwd: dir, encoding: 'utf8', timeout: 300_000, env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
      assert.equal(r.status, 0, `${line}\n${r.stderr}`);
      assert.ok(r.stdout.length > 0, line);
    }
  }
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

test('every --help wraps its usage and flag lines at 100 columns (only the example command lines, kept whole to copy, may run past)', () => {
  // s47 newcomer LOW-8: sweep --help's --max-rate line was 383 columns, trace's usage line 202.
  for (const command of ['', 'bench', 'estimate', 'simulate', 'trace', 'sweep', 'merge', 'submit', 'vllm-log']) {
    const r = spawnSync(process.execPath, [runner, ...(command ? [command] : []), '--help'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.split('\n');
    const examples = lines.findIndex((l) => l.startsWith('examples '));
    const long = (examples < 0 ? lines : lines.slice(0, examples)).filter((l) => l.length > 100);
    assert.deepEqual(long, [], `attnscope ${command} --help`);
  }
});
