/**
 * Which files a command offers when no such file is the active editor's (extension/pick.ts): a
 * serving simulation or a sweep needs a profile's `workload:` / `sweep:` block, which a config.json
 * never has (s33 newcomer-ed: "Run serving simulation" offered all 41 files, the 20 config.json too).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { minimatch } from 'minimatch';
import { isTarget, targetGlob } from '../../extension/pick';

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
