// KIOKU_HOOK_TIMEOUT and KIOKU_HOOK_RECALL_TIMEOUT read as a positive number of milliseconds; anything
// else is the default. Number('abc') was NaN, and a NaN timer fires after 1 ms: every hook call
// timed out and nothing was injected on any prompt.
import { describe, expect, it } from 'vitest';
import type { Kioku } from '../src/kioku.js';
import { hookTimeoutMs, runHook } from '../src/hook/run.js';
import { tempDir } from './helpers.js';

const delivery = [{ evidence_key: 'ev1:private:memory:rollback', layer: 'memory', kind: 'knowledge', title: 'Rollback', text: 'Roll back with scripts/rollback.sh billing.', excerpt: false, verdict: 0.9 }];
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A service that answers after `ms` each call (a real one takes tens of ms at least). */
function slowKioku(ms: number): () => Promise<Kioku> {
  const fake = {
    openSession: async () => (await sleep(ms), { session_id: 's' }),
    startTurn: async () => (await sleep(ms), { turn_id: 'turn-1', delivery, records: [] }),
  };
  return async () => (await sleep(ms), fake as unknown as Kioku);
}

describe('the hook timeouts from the environment', () => {
  it('a timeout that is not a positive number of milliseconds is the default', () => {
    expect(hookTimeoutMs('2500', 6_000)).toBe(2_500);
    for (const bad of [undefined, '', ' ', 'abc', '0', '-5', 'NaN', 'Infinity', '0.2']) expect(hookTimeoutMs(bad, 6_000)).toBe(6_000);
    // setTimeout fires a delay past 2^31-1 ms after 1 ms: capped instead
    expect(hookTimeoutMs('1e12', 6_000)).toBe(2_147_483_647);
  });

  it('a hook with KIOKU_HOOK_TIMEOUT=abc still injects what a service answering in 30 ms delivered', async () => {
    const dir = tempDir('kioku-hook-timeout-');
    const event = JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 'sess-t', prompt: 'how do I roll back billing?', cwd: '/repo' });
    try {
      for (const env of [{ KIOKU_HOOK_TIMEOUT: 'abc' }, { KIOKU_HOOK_RECALL_TIMEOUT: 'soon', KIOKU_HOOK_TIMEOUT: '-1' }]) {
        const out = await runHook(event, { data: dir.path, host: 'claude', env: { PATH: process.env['PATH'] ?? '', ...env }, kioku: slowKioku(30) });
        expect(out.problem).toBeUndefined();
        expect(out.stdout).toContain('[ev1:private:memory:rollback]');
      }
    } finally {
      dir.cleanup();
    }
  });
});
