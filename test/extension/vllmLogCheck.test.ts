/**
 * Check vLLM log after its picks (extension/vllmLogCheck.ts): the notice shows before anything is
 * read and stays until the preview is open (s48 newcomer-ed 13: a blank preview for ~6 s with no
 * word that the check was under way, 62-vllmlog-2.png).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runVllmLogCheck, vllmLogCheckTitle, type VllmLogCheckHost } from '../../extension/vllmLogCheck';

/** A host that records what happens, in order; the preview settles only when `openPreview` is called (the Markdown extension activating). */
function recordingHost(markdown: string | null) {
  const events: string[] = [];
  let openPreview!: () => void;
  const previewOpened = new Promise<void>((resolve) => (openPreview = resolve));
  let previewAsked!: () => void;
  const previewStarted = new Promise<void>((resolve) => (previewAsked = resolve));
  const host: VllmLogCheckHost = {
    progress: async (title, task) => {
      events.push(`notice: ${title}`);
      await task();
      events.push('notice closed');
    },
    markdown: async () => {
      events.push('read');
      return markdown;
    },
    showPreview: async (md) => {
      events.push(`preview asked: ${md}`);
      previewAsked();
      await previewOpened;
      events.push('preview open');
    },
  };
  return { host, events, openPreview, previewStarted };
}

describe('Check vLLM log', () => {
  it('shows the notice first and keeps it while the preview opens', async () => {
    const { host, events, openPreview, previewStarted } = recordingHost('# vLLM log');
    const done = runVllmLogCheck(host, 'vllm-llama-3.1-8b.log', 'llama-3.1-8b.attn.yaml');
    await previewStarted;
    // The preview is still opening: the notice is up, not closed.
    assert.deepEqual(events, ['notice: AttnScope: reading vllm-llama-3.1-8b.log against llama-3.1-8b.attn.yaml…', 'read', 'preview asked: # vLLM log']);
    openPreview();
    await done;
    assert.deepEqual(events.slice(3), ['preview open', 'notice closed']);
  });

  it('a model the server cannot read: the notice closes, no preview', async () => {
    const { host, events } = recordingHost(null);
    await runVllmLogCheck(host, 'a.log', null);
    assert.deepEqual(events, ['notice: AttnScope: reading a.log…', 'read', 'notice closed']);
    assert.equal(vllmLogCheckTitle('a.log', 'config.json'), 'AttnScope: reading a.log against config.json…');
  });
});
