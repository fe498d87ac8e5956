// Decay and the lifecycle as events (seed 004; src/recall/aging.ts, src/recall/lifecycle.ts):
// per-kind strength, candidate → active → archived by the seed's thresholds, tombstones skipped,
// transitions appended (never on a dry run, never twice), archived items sinking but kept, a use
// bringing one back — through the facade, the CLI and the serve timer.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HashedEmbedder } from '../src/embed/index.js';
import { openKioku } from '../src/kioku.js';
import { DEFAULT_AGING, nextState, strength } from '../src/recall/index.js';
import { lifecycleEveryFromEnv, startLifecycleTimer } from '../src/server/lifecycle-timer.js';
import { DoubleJudge } from './doubles/judge.js';
import { runCli, tempDir } from './helpers.js';

const DAY = 86_400_000;

describe('decay rules', () => {
  it('decays by the seed rate of the kind, with a floor', () => {
    expect(strength(DEFAULT_AGING, 'episodic', 100 * DAY)).toBeCloseTo(Math.exp(-1), 10);
    expect(strength(DEFAULT_AGING, 'identity', 100 * DAY)).toBeCloseTo(Math.exp(-0.01), 10);
    expect(strength(DEFAULT_AGING, 'working', 1000 * DAY)).toBe(0.05);
  });
  it('moves by the seed thresholds: promote at 0.5, archive below 0.2, back to active only after a use', () => {
    expect(nextState(DEFAULT_AGING, 'candidate', 0.5, false)?.to).toBe('active');
    expect(nextState(DEFAULT_AGING, 'candidate', 0.3, false)).toBeUndefined();
    expect(nextState(DEFAULT_AGING, 'active', 0.19, false)?.to).toBe('archived');
    expect(nextState(DEFAULT_AGING, 'active', 0.2, false)).toBeUndefined();
    expect(nextState(DEFAULT_AGING, 'archived', 0.05, false)).toBeUndefined();
    expect(nextState(DEFAULT_AGING, 'archived', 0.05, true)?.to).toBe('active');
    expect(nextState(DEFAULT_AGING, 'tombstoned', 1, true)).toBeUndefined();
  });
});

describe('the lifecycle job', () => {
  it('appends transitions (none on a dry run, none twice); archived sinks but stays; a use brings it back', async () => {
    const dir = tempDir();
    let clock = new Date();
    const kioku = await openKioku({ data: dir.path, embedder: new HashedEmbedder(32), judge: new DoubleJudge(() => 0.9), now: () => clock });
    try {
      await kioku.writeMemories({
        memories: [
          { id: 'trip', kind: 'event', text: 'Island lighthouse ferry from the harbour.' },
          { id: 'rule', kind: 'fact', text: 'Island lighthouse ferry from the harbour, hourly.' },
          // matches one word: the lane's weakest hit, so the two above keep most of their score
          { id: 'dock', kind: 'fact', text: 'The harbour has a fuel dock.' },
          { id: 'gone', kind: 'event', text: 'Harbour ferry cancelled once.' },
        ],
      });
      await kioku.forget('gone', {});
      const dry = await kioku.lifecycleRun({ dry_run: true });
      expect(dry).toMatchObject({ items: 3, skipped_tombstoned: 1, appended: 0, by_transition: { 'candidate → active': 3 } });
      expect(dry.histogram.at(-1)?.count).toBe(3);
      let appended = 0;
      for await (const _r of kioku.log.read({ types: ['lifecycle.transitioned'] })) appended += 1;
      expect(appended).toBe(0);
      expect((await kioku.lifecycleRun({})).appended).toBe(3);
      expect((await kioku.lifecycleRun({})).appended).toBe(0);
      const ask = () => kioku.recall({ query: 'island lighthouse ferry harbour', limit: 5 });
      const before = await ask();
      expect(before.records[0]?.evidence_key).toBe('ev1:private:memory:trip');

      // 400 days on: the event (0.01/day) is archived, the fact (0.001/day) stays active
      clock = new Date(Date.now() + 400 * DAY);
      const later = await kioku.lifecycleRun({});
      expect(later.by_transition).toEqual({ 'active → archived': 1 });
      expect(later.transitions[0]).toMatchObject({ evidence_key: 'ev1:private:memory:trip', from: 'active', to: 'archived' });
      const sunk = await ask();
      const trip = sunk.records.find((r) => r.evidence_key === 'ev1:private:memory:trip');
      expect(trip?.why.lanes['archived']).toBeLessThan(0);
      expect(sunk.records[0]?.evidence_key).toBe('ev1:private:memory:rule');

      // fetched by key: at once no longer sunk, and the next run records the return
      await kioku.evidence('ev1:private:memory:trip');
      const back = await ask();
      expect(back.records[0]?.evidence_key).toBe('ev1:private:memory:trip');
      expect(back.records[0]?.why.lanes['archived']).toBeUndefined();
      expect((await kioku.lifecycleRun({})).by_transition).toEqual({ 'archived → active': 1 });
      expect(kioku.projections.views.lifecycle.get('private', 'ev1:private:memory:trip')?.state).toBe('active');
    } finally {
      await kioku.close();
      dir.cleanup();
    }
  });

  it('an archived item a recall lists but does not deliver sinks on the next recall too (defect: a look-up lifted it, so it sank for one recall)', async () => {
    const dir = tempDir();
    let clock = new Date();
    // the judge finds the archived event of no use: listed among the records, never delivered
    const judge = new DoubleJudge((c) => (c.key.endsWith(':trip') ? 0.1 : 0.9));
    const kioku = await openKioku({ data: dir.path, embedder: new HashedEmbedder(32), judge, now: () => clock });
    try {
      await kioku.writeMemories({
        memories: [
          { id: 'trip', kind: 'event', text: 'Island lighthouse ferry from the harbour.' },
          { id: 'rule', kind: 'fact', text: 'Island lighthouse ferry from the harbour, hourly.' },
        ],
      });
      await kioku.lifecycleRun({});
      clock = new Date(Date.now() + 400 * DAY);
      expect((await kioku.lifecycleRun({})).by_transition).toEqual({ 'active → archived': 1 });
      for (let i = 0; i < 3; i++) {
        const p = await kioku.recall({ query: 'island lighthouse ferry harbour', limit: 5 });
        expect(p.delivery.map((d) => d.evidence_key)).not.toContain('ev1:private:memory:trip');
        const trip = p.records.find((r) => r.evidence_key === 'ev1:private:memory:trip');
        expect(trip?.why.lanes['archived'], `recall ${i}`).toBeLessThan(0);
      }
      expect((await kioku.lifecycleRun({})).by_transition).toEqual({});
      expect(kioku.projections.views.lifecycle.get('private', 'ev1:private:memory:trip')?.state).toBe('archived');
      // the item's usage says so: archived since the run, looked up, never used
      const usage = await kioku.usage('ev1:private:memory:trip');
      expect(usage.lifecycle).toMatchObject({ state: 'archived', since: expect.any(String) });
      expect(usage.access).toMatchObject({ delivered: 0, fetched: 0, last_used: null });
      expect(usage.access.looked_up).toBeGreaterThanOrEqual(3);
    } finally {
      await kioku.close();
      dir.cleanup();
    }
  });

  it('two runs at once take turns: each transition appended once (defect: both planned before either appended, every transition twice)', async () => {
    const dir = tempDir();
    const kioku = await openKioku({ data: dir.path, embedder: new HashedEmbedder(32) });
    try {
      await kioku.writeMemories({ memories: Array.from({ length: 5 }, (_, i) => ({ id: `m${i}`, kind: 'fact', text: `Fact ${i} about the ferries.` })) });
      const runs = await Promise.all([kioku.lifecycleRun({}), kioku.lifecycleRun({}), kioku.lifecycleRun({ dry_run: true })]);
      expect(runs.map((r) => r.appended).sort()).toEqual([0, 0, 5]);
      let appended = 0;
      for await (const _r of kioku.log.read({ types: ['lifecycle.transitioned'] })) appended += 1;
      expect(appended).toBe(5);
    } finally {
      await kioku.close();
      dir.cleanup();
    }
  });

  it('runs on a timer inside the service, and stops with it', async () => {
    const dir = tempDir();
    const kioku = await openKioku({ data: dir.path, embedder: new HashedEmbedder(32) });
    try {
      await kioku.writeMemories({ memories: [{ id: 'm', kind: 'fact', text: 'Timers run the lifecycle.' }] });
      const timer = startLifecycleTimer(kioku.store, { everyHours: 0.0001 });
      for (let i = 0; i < 200 && timer.runs.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
      await timer.stop();
      expect(timer.runs[0]?.appended).toBe(1);
    } finally {
      await kioku.close();
      dir.cleanup();
    }
  });

  it('KIOKU_LIFECYCLE_EVERY_H: hours, 0 for off, at least a minute (defect: 1e-7 ran the job back to back)', () => {
    expect(lifecycleEveryFromEnv(undefined)).toBe(24);
    expect(lifecycleEveryFromEnv('0')).toBe(0);
    expect(lifecycleEveryFromEnv('0.5')).toBe(0.5);
    expect(lifecycleEveryFromEnv('0.0167')).toBe(0.0167);
    for (const bad of ['1e-7', '0.001', '-1', 'daily', 'Infinity'])
      expect(() => lifecycleEveryFromEnv(bad), bad).toThrow(expect.objectContaining({ code: 'KIOKU_USAGE', message: expect.stringContaining('KIOKU_LIFECYCLE_EVERY_H') }));
  });

  it('an interval longer than setTimeout takes (24.8 days) waits it out (defect: KIOKU_LIFECYCLE_EVERY_H=720 ran the job every millisecond)', async () => {
    const dir = tempDir();
    const kioku = await openKioku({ data: dir.path, embedder: new HashedEmbedder(32) });
    try {
      await kioku.writeMemories({ memories: [{ id: 'm', kind: 'fact', text: 'Timers run the lifecycle.' }] });
      const timer = startLifecycleTimer(kioku.store, { everyHours: 720 });
      await new Promise((r) => setTimeout(r, 300));
      await timer.stop();
      expect(timer.runs).toEqual([]);
      let appended = 0;
      for await (const _r of kioku.log.read({ types: ['lifecycle.transitioned'] })) appended += 1;
      expect(appended).toBe(0);
    } finally {
      await kioku.close();
      dir.cleanup();
    }
  });

  it('resumes its rhythm from the last run kept in the data dir (defect: a service restarted more often than every interval never ran the job)', async () => {
    const dir = tempDir();
    const kioku = await openKioku({ data: dir.path, embedder: new HashedEmbedder(32) });
    const lastRunFile = join(dir.path, 'lifecycle-last-run');
    try {
      await kioku.writeMemories({ memories: [{ id: 'm', kind: 'fact', text: 'Timers run the lifecycle.' }] });
      // never ran here: the first run one interval (an hour) after start
      const fresh = startLifecycleTimer(kioku.store, { everyHours: 1, lastRunFile });
      await new Promise((r) => setTimeout(r, 300));
      await fresh.stop();
      expect(fresh.runs).toEqual([]);
      expect(existsSync(lastRunFile)).toBe(false);
      // the last run an hour and a minute ago: due at once, and the time of this run kept
      writeFileSync(lastRunFile, new Date(Date.now() - 61 * 60_000).toISOString());
      const resumed = startLifecycleTimer(kioku.store, { everyHours: 1, lastRunFile });
      for (let i = 0; i < 100 && resumed.runs.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
      await resumed.stop();
      expect(resumed.runs[0]?.appended).toBe(1);
      expect(Date.parse(readFileSync(lastRunFile, 'utf8').trim())).toBe(Date.parse(resumed.runs[0]?.at ?? ''));
      // a run half an interval ago: not yet
      const soon = startLifecycleTimer(kioku.store, { everyHours: 1, lastRunFile });
      await new Promise((r) => setTimeout(r, 300));
      await soon.stop();
      expect(soon.runs).toEqual([]);
    } finally {
      await kioku.close();
      dir.cleanup();
    }
  });

  it('kioku lifecycle run --dry-run --json prints the histogram and the transitions, appending nothing', async () => {
    const dir = tempDir();
    const kioku = await openKioku({ data: dir.path, embedder: new HashedEmbedder(32) });
    await kioku.writeMemories({ memories: [{ id: 'm', kind: 'preference', text: 'Prefers tea.' }] });
    await kioku.close();
    try {
      const r = await runCli(['lifecycle', 'run', '--dry-run', '--json', '--data', dir.path], { KIOKU_EMBEDDER: 'hash' });
      expect(r.code, r.stderr).toBe(0);
      expect(r.json).toMatchObject({ dry_run: true, items: 1, appended: 0, by_transition: { 'candidate → active': 1 } });
      expect(r.stdout).not.toBe('');
    } finally {
      dir.cleanup();
    }
  });
});
