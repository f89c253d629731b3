/** The offer to rename an HF config the editor does not read (extension/configRename.ts; s29 newcomer-ed 4). */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { renameOffer } from '../../extension/configRename';

describe('config rename offer', () => {
  it('offers gemma-2-9b.config.json for a real HF config saved as gemma-2-9b.json', () => {
    // A config.json as the hub serves it: "architectures" and "model_type" in its first lines.
    const text = readFileSync(join(__dirname, '..', '..', 'examples', 'llama-3.1-8b', 'config.json'), 'utf8');
    assert.match(text.slice(0, 4096), /"model_type"/);
    assert.deepEqual(renameOffer('/ws/gemma-2-9b.json', text), {
      newPath: '/ws/gemma-2-9b.config.json',
      message: 'AttnScope reads HF configs named config.json or *.config.json — rename gemma-2-9b.json to gemma-2-9b.config.json?',
    });
    assert.equal(renameOffer('C:\\ws\\Llama-3.1-8B.JSON', '{"architectures": ["LlamaForCausalLM"]}')?.newPath, 'C:\\ws\\Llama-3.1-8B.config.json');
  });

  it('offers nothing for files the editor reads, other JSON, or keys past the first 4 KB', () => {
    const config = '{"model_type": "llama"}';
    assert.equal(renameOffer('/ws/config.json', config), null);
    assert.equal(renameOffer('/ws/gemma.config.json', config), null);
    assert.equal(renameOffer('/ws/serve.attn.json', config), null);
    assert.equal(renameOffer('/ws/notes.txt', config), null);
    assert.equal(renameOffer('/ws/package.json', '{"name": "x", "type": "module"}'), null);
    // The words in a value are no key: a tokenizer_config.json's chat template mentions neither as a key.
    assert.equal(renameOffer('/ws/tok.json', '{"comment": "model_type is read from config.json"}'), null);
    assert.equal(renameOffer('/ws/late.json', `{"pad": "${'x'.repeat(5000)}", "model_type": "llama"}`), null);
  });
});
