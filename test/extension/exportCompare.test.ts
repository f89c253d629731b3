/**
 * Compare's exports (extension/exportCompare.ts): CSV through the exports' one writer (figure, A,
 * B, change, unit, source; values in the unit) and a Markdown table of the values as shown, for a
 * design doc (s39 newcomer-ed 1). Expected text written out by hand.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CHANGE_MEANING } from '../../core/format';
import type { ComparedRun, ComparisonExportRow } from '../../core/protocol/webview';
import { compareToCsv, compareToMarkdown } from '../../extension/exportCompare';

const rows: ComparisonExportRow[] = [
  { figure: 'tensor_parallel_size', a: '1', b: '2', aText: '1', bText: '2', change: '', unit: 'GPUs a stage', source: 'profile' },
  { figure: 'output tokens/s per GPU (modelled)', a: 2678, b: 1402, aText: '2,678', bText: '1,402', change: '-47.6%', unit: 'tokens/s a GPU (output tokens/s / GPUs)', source: 'modelled (step-time model)' },
  { figure: 'not modelled', a: 'nothing named', b: 'the all-reduce | between GPUs', aText: 'nothing named', bText: 'the all-reduce | between GPUs', change: '', unit: '', source: 'step-time model' },
];

const runA: ComparedRun = { name: 'qwen2.5-7b · qwen-tiny.attn.yaml · simulation', createdAt: '2026-12-05T09:12:54.168Z', file: '20261205-091254-qwen2.5-7b_qwen-tiny.attn_simulation.json', profile: '/w/qwen-tiny.attn.yaml' };
const runB: ComparedRun = { name: 'qwen2.5-7b · qwen-tiny.attn.yaml · simulation', createdAt: '2026-12-05T09:27:50.000Z', file: '20261205-092750-qwen2.5-7b_qwen-tiny.attn_simulation.json', profile: '/w/qwen-tiny.attn.yaml' };

describe('compare export', () => {
  it('CSV: the runs A and B named first (name, time, history file, profile), then a row per setting or figure, numbers in the unit (s40 newcomer-ed F3)', () => {
    const { text, rows: n } = compareToCsv(runA, runB, rows);
    assert.equal(n, 7);
    assert.equal(text, [
      'figure,A,B,change,unit,source',
      'run,qwen2.5-7b · qwen-tiny.attn.yaml · simulation,qwen2.5-7b · qwen-tiny.attn.yaml · simulation,,,history',
      'run saved,2026-12-05T09:12:54.168Z,2026-12-05T09:27:50.000Z,,ISO 8601,history',
      'run file,20261205-091254-qwen2.5-7b_qwen-tiny.attn_simulation.json,20261205-092750-qwen2.5-7b_qwen-tiny.attn_simulation.json,,in the history folder,history',
      'profile,/w/qwen-tiny.attn.yaml,/w/qwen-tiny.attn.yaml,,file it ran,run',
      'tensor_parallel_size,1,2,,GPUs a stage,profile',
      'output tokens/s per GPU (modelled),2678,1402,-47.6%,tokens/s a GPU (output tokens/s / GPUs),modelled (step-time model)',
      'not modelled,nothing named,the all-reduce | between GPUs,,,step-time model',
      '',
    ].join('\n'));
  });

  it('Markdown: the two runs named above a table of the values as shown, pipes escaped, what the change means under it', () => {
    const md = compareToMarkdown({ name: 'tp1 · simulation', createdAt: '2026-12-05T06:35:09.000Z' }, { name: 'tp2 · simulation', createdAt: '2026-12-05T06:36:00.000Z' }, rows, CHANGE_MEANING);
    assert.equal(md, [
      'A: tp1 · simulation (2026-12-05T06:35:09.000Z) · B: tp2 · simulation (2026-12-05T06:36:00.000Z)',
      '',
      '| figure | A | B | change | unit | source |',
      '| --- | ---: | ---: | ---: | --- | --- |',
      '| run | tp1 · simulation | tp2 · simulation |  |  | history |',
      '| run saved | 2026-12-05T06:35:09.000Z | 2026-12-05T06:36:00.000Z |  | ISO 8601 | history |',
      '| tensor_parallel_size | 1 | 2 |  | GPUs a stage | profile |',
      '| output tokens/s per GPU (modelled) | 2,678 | 1,402 | -47.6% | tokens/s a GPU (output tokens/s / GPUs) | modelled (step-time model) |',
      '| not modelled | nothing named | the all-reduce \\| between GPUs |  |  | step-time model |',
      '',
      CHANGE_MEANING,
      '',
    ].join('\n'));
  });
});
