// A figure that steers the project reproduces on any day: time phrases in the offline
// cases resolve against the case file's `now`, not the system clock. The same cases run
// with the system clock set to two different dates give the same verdicts and deliveries.
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { runEval } from '../src/eval/index.js';
import { clockFromEnv } from '../src/recall/setup.js';
import { REPO } from './helpers.js';

afterEach(() => {
  vi.useRealTimers();
});

const run = () =>
  runEval({
    caseFiles: [join(REPO, 'evals/cases/recall.json')],
    only: ['checkout-outage'],
    libraryDir: join(REPO, 'evals/library'),
    transport: 'inproc',
    embedder: 'hash',
    judge: 'local',
  });

it('gives the same verdicts for a "last week" case on two different dates', async () => {
  const verdicts = async (date: string) => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date(date) });
    const report = await run();
    vi.useRealTimers();
    return report.results.map((r) => ({ id: r.id, pass: r.pass, delivered: r.delivered, judged: r.judged }));
  };
  const before = await verdicts('2026-11-29T12:00:00Z');
  const later = await verdicts('2027-06-15T08:00:00Z');
  expect(before.length).toBeGreaterThan(0);
  expect(before[0]?.judged.length).toBeGreaterThan(0);
  expect(later).toEqual(before);
}, 120_000);

it('reads a fixed clock from KIOKU_CLOCK and refuses a malformed one as a usage error', () => {
  expect(clockFromEnv({})).toBeUndefined();
  expect(clockFromEnv({ KIOKU_CLOCK: '2026-11-29T12:00:00Z' })?.().toISOString()).toBe('2026-11-29T12:00:00.000Z');
  expect(() => clockFromEnv({ KIOKU_CLOCK: 'last tuesday' })).toThrow(/KIOKU_CLOCK/);
});
