/** ShownRunStore (extension/shownRun.ts): the id a new extension host reads is the one the last host saved last. */
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ShownRunStore } from '../../extension/shownRun';
import { tempDir } from '../fixtures/tmp';
import { run } from '../fixtures/run';

const folder = (): string => join(tempDir('attnscope-shown-'), 'workspaceStorage', 'attnscope');

describe('ShownRunStore', () => {
  it('gives a new store on the same folder (the next extension host) the id saved last', async () => {
    const dir = folder();
    const host1 = new ShownRunStore(dir);
    // A finish as the dashboard records it: the run shown unsaved (null), then its id once saved,
    // without awaiting in between (the reload may come at any point after).
    void host1.save('20261202-055400-llama-3.1-8b_e2e.attn_quick');
    void host1.save(null);
    await host1.save('20261202-060100-llama-3.1-8b_e2e.attn_quick');
    assert.equal(await new ShownRunStore(dir).load(), '20261202-060100-llama-3.1-8b_e2e.attn_quick');
    assert.deepEqual(readdirSync(dir), ['dashboard.json'], 'no temp file left');
  });

  it('keeps null (a refusal or an estimate shown last), and reads nothing before the first save', async () => {
    const dir = folder();
    assert.equal(await new ShownRunStore(dir).load(), null);
    const store = new ShownRunStore(dir);
    await store.save('20261202-055400-a');
    await store.save(null);
    assert.equal(await new ShownRunStore(dir).load(), null);
  });

  it('reads a file it did not write as no id, and reports a write it cannot do', async () => {
    const dir = folder();
    const store = new ShownRunStore(dir);
    await store.save('x');
    for (const junk of ['{', 'null', '{"shownRunId": 3}', '[]']) {
      writeFileSync(join(dir, 'dashboard.json'), junk);
      assert.equal(await new ShownRunStore(dir).load(), null, junk);
    }
    // A folder under a file cannot be created: the error goes to onError, the promise resolves.
    const errors: unknown[] = [];
    await new ShownRunStore(join(dir, 'dashboard.json', 'sub')).save('y', (e) => errors.push(e));
    assert.equal(errors.length, 1);
    assert.match(String((errors[0] as NodeJS.ErrnoException).code), /ENOTDIR|EEXIST/);
  });

  it('hands the next host the run a reload interrupted (saveSync) and its notice once; the id stays', async () => {
    const dir = folder();
    const host1 = new ShownRunStore(dir);
    await host1.save('20261202-055400-a');
    host1.saveSync('20261202-060000-b', 'the benchmark of b was interrupted');
    const host2 = new ShownRunStore(dir);
    assert.deepEqual(await host2.takeNotice(), { notice: 'the benchmark of b was interrupted', resumeSweep: null, rerun: null });
    assert.equal(await host2.takeNotice(), null, 'told once');
    assert.equal(await new ShownRunStore(dir).takeNotice(), null, 'not by the host after either');
    assert.equal(await new ShownRunStore(dir).load(), '20261202-060000-b');
    assert.deepEqual(readdirSync(dir), ['dashboard.json'], 'no temp file left');
  });

  it('hands the next host a notice with no saved run (a simulation the reload stopped): no run to show, the notice once', async () => {
    const dir = folder();
    const host1 = new ShownRunStore(dir);
    host1.saveSync(null, 'the simulation was interrupted; nothing is saved');
    const host2 = new ShownRunStore(dir);
    assert.equal(await host2.load(), null);
    assert.deepEqual(await host2.takeNotice(), { notice: 'the simulation was interrupted; nothing is saved', resumeSweep: null, rerun: null });
    assert.equal(await new ShownRunStore(dir).takeNotice(), null, 'told once');
  });

  // s28 newcomer-ed 5: the finished sweep was gone after a reload; the store kept the run alone.
  it('gives the next host the sweep shown last, kept through the run\'s saves and a reload\'s notice', async () => {
    const dir = folder();
    const host1 = new ShownRunStore(dir);
    assert.equal(await host1.loadSweep(), null, 'none before the first');
    await host1.save('20261202-055400-a');
    void host1.saveSweep('/ws/.attnscope/sweeps/combo-c322d6f5/sweep-report.json');
    // A run shown after the sweep: the sweep stays recorded (the Sweep tab still shows it).
    await host1.save('20261202-060100-b');
    assert.equal(await new ShownRunStore(dir).loadSweep(), '/ws/.attnscope/sweeps/combo-c322d6f5/sweep-report.json');
    assert.equal(await new ShownRunStore(dir).load(), '20261202-060100-b');
    host1.saveSync('20261202-060100-b', 'the simulation was interrupted');
    const host2 = new ShownRunStore(dir);
    assert.equal(await host2.loadSweep(), '/ws/.attnscope/sweeps/combo-c322d6f5/sweep-report.json');
    await host2.takeNotice();
    assert.equal(await new ShownRunStore(dir).loadSweep(), '/ws/.attnscope/sweeps/combo-c322d6f5/sweep-report.json', 'kept when the notice is taken');
    assert.deepEqual(readdirSync(dir), ['dashboard.json'], 'no temp file left');
  });

  it('hands the next host a sweep the reload interrupted: the notice once, with the profile whose sweep resumes', async () => {
    const dir = folder();
    new ShownRunStore(dir).saveSync(null, 'the sweep of combo.attn.yaml was interrupted', '/ws/combo.attn.yaml');
    const host2 = new ShownRunStore(dir);
    assert.deepEqual(await host2.takeNotice(), { notice: 'the sweep of combo.attn.yaml was interrupted', resumeSweep: '/ws/combo.attn.yaml', rerun: null });
    assert.equal(await host2.takeNotice(), null, 'told once');
    // A later notice without a sweep does not carry the old profile.
    host2.saveSync(null, 'the simulation was interrupted');
    assert.deepEqual(await new ShownRunStore(dir).takeNotice(), { notice: 'the simulation was interrupted', resumeSweep: null, rerun: null });
  });

  // s50 newcomer-ed 1: a benchmark reloaded before its first case left nothing, and the next dashboard showed another model's older run as if current.
  it('hands the next host a stopped run that is not in history, shown until the next save, and the notice\'s Run again', async () => {
    const dir = folder();
    const host1 = new ShownRunStore(dir);
    await host1.save('20261202-055400-llama');
    const stopped = { ...run, name: 'Mixtral-8x7B-v0.1 · m.attn.yaml · full', status: 'cancelled' as const, cases: [], error: 'interrupted (window reloaded or closed) after 0 case(s)' };
    host1.saveSync(null, 'the benchmark of Mixtral was interrupted', undefined, { run: stopped, rerun: { source: 'file:///ws/m.attn.yaml', job: 'bench' } });
    const host2 = new ShownRunStore(dir);
    assert.equal(await host2.load(), null, 'not the llama run shown before');
    assert.deepEqual(await host2.loadInterrupted(), stopped);
    assert.deepEqual(await host2.takeNotice(), { notice: 'the benchmark of Mixtral was interrupted', resumeSweep: null, rerun: { source: 'file:///ws/m.attn.yaml', job: 'bench' } });
    assert.deepEqual(await new ShownRunStore(dir).loadInterrupted(), stopped, 'still shown by a host after the notice was told');
    await host2.save('20261202-061000-next');
    assert.equal(await new ShownRunStore(dir).loadInterrupted(), null, 'a run shown since replaces it');
    // A later reload's notice with a saved run carries no stopped run of before.
    host2.saveSync('20261202-061000-next', 'the benchmark of next was interrupted', undefined, { rerun: { source: 'file:///ws/n.attn.yaml', job: 'simulate' } });
    assert.equal(await new ShownRunStore(dir).loadInterrupted(), null);
    assert.deepEqual((await new ShownRunStore(dir).takeNotice())?.rerun, { source: 'file:///ws/n.attn.yaml', job: 'simulate' });
  });
});
