/**
 * Which files a command offers when no such file is the active editor's (extension/pick.ts): a
 * serving simulation or a sweep needs a profile's `workload:` / `sweep:` block, which a config.json
 * never has (s33 newcomer-ed: "Run serving simulation" offered all 41 files, the 20 config.json too).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { minimatch } from 'minimatch';
import { filePickItem, isTarget, runButtonFile, targetGlob } from '../../extension/pick';

// VS Code's findFiles reads `{a,b}` alternatives as minimatch's brace expansion does.
const offered = (glob: string, name: string): boolean => minimatch(name, glob, { dot: true });

test('a simulation or a sweep offers profiles only; a benchmark or a memory estimate profiles and configs', () => {
  const profiles = ['llama.attn.yaml', 'serve/llama.attn.yml', 'a/b/qwen.attn.json'];
  const configs = ['config.json', 'configs/Qwen2-7B.config.json', 'models/llama/config.json'];
  const neither = ['package.json', 'llama.yaml', 'tsconfig.json'];
  for (const name of profiles) {
    assert.ok(offered(targetGlob('profile'), name) && isTarget('profile', name), `${name}: a profile, offered to simulate`);
    assert.ok(offered(targetGlob('model'), name) && isTarget('model', name), `${name}: a profile, offered to benchmark`);
  }
  for (const name of configs) {
    assert.ok(!offered(targetGlob('profile'), name) && !isTarget('profile', name), `${name}: a config (no workload), not offered to simulate`);
    assert.ok(offered(targetGlob('model'), name) && isTarget('model', name), `${name}: a config, offered to benchmark`);
  }
  for (const name of neither) {
    assert.ok(!offered(targetGlob('model'), name) && !isTarget('model', name), `${name}: neither`);
  }
});

// s34 act34 4b: the dashboard's Run button, with no run of a file shown, ran the command without a
// file; the click had given the webview the focus, so the command saw no active editor and always
// opened the workspace pick. It now passes the file of the text editor active last.
test("the Run button of a dashboard showing no run runs the last active editor's file while it is open and of the right kind", () => {
  const profile = '/ws/beta/e2e.attn.yaml';
  const config = '/ws/alpha/llama/config.json';
  const open = [profile, config, '/ws/notes.txt'];
  assert.equal(runButtonFile('model', profile, open), profile);
  assert.equal(runButtonFile('profile', profile, open), profile);
  assert.equal(runButtonFile('model', config, open), config, 'a config.json is benchmarked');
  assert.equal(runButtonFile('profile', config, open), undefined, 'a config.json has no workload to simulate: the pick');
  assert.equal(runButtonFile('model', '/ws/notes.txt', open), undefined, 'not a model file: the pick');
  assert.equal(runButtonFile('model', '/ws/gone.attn.yaml', open), undefined, 'closed since: the pick');
  assert.equal(runButtonFile('model', undefined, open), undefined, 'no text editor was active: the pick');
});

test('a picked file reads its name and its folder, no folder for a file at the top (s44 newcomer-ed F17: "gpt-oss-20b.attn.yaml gpt-oss-20b.attn.yaml")', () => {
  assert.deepEqual(filePickItem('/ws/gpt-oss-20b.attn.yaml', 'gpt-oss-20b.attn.yaml'), { label: 'gpt-oss-20b.attn.yaml' });
  assert.deepEqual(filePickItem('/ws/hf/Llama-3.1-70B/config.json', 'hf/Llama-3.1-70B/config.json'), { label: 'config.json', description: 'hf/Llama-3.1-70B' });
});
