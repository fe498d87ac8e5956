// Robustness of the HTTP service: hundreds of malformed bodies change nothing; many
// concurrent turns are each captured once; a restart (SIGTERM or SIGKILL) loses
// nothing that was acknowledged.
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLevelStore, openLog, verifyChain } from '../src/log/index.js';
import { freePort, serveProcess, tempDir } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';

describe('malformed input', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
    await s.call('POST', '/v1/memories', { memories: [{ id: 'seed', kind: 'fact', text: 'seed memory' }] });
  });
  afterAll(async () => s.stop());

  // A small deterministic generator of bad bodies: wrong types, huge strings, deep
  // nesting, invalid UTF-8, unknown fields, prototype keys, missing fields.
  function* badBodies(): Generator<{ path: string; body: string | Uint8Array; what: string }> {
    const routes: { path: string; valid: Record<string, unknown> }[] = [
      { path: '/v1/sessions/open', valid: { agent: 'a' } },
      { path: '/v1/turns/start', valid: { session_id: 'SESSION', query: 'hello there friend' } },
      { path: '/v1/turns/TURN/complete', valid: { answer: 'ok' } },
      { path: '/v1/memories', valid: { memories: [{ kind: 'fact', text: 'x' }] } },
      { path: '/v1/memories/seed/supersede', valid: { superseded_ids: ['seed'] } },
      { path: '/v1/memories/seed/audience', valid: { audience: ['team'] } },
      { path: '/v1/pipeline/jobs/events', valid: { job_id: 'j', stage: 's', status: 'queued' } },
    ];
    const wrong = [null, 42, -1, 1.5, true, 'string', [], {}, [1, 2], { nested: { deeper: true } }, Array.from({ length: 5_000 }, (_, i) => i)];
    const kind = (v: unknown): string => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);
    for (const r of routes) {
      for (const field of Object.keys(r.valid)) {
        // only values of another JSON type than the valid one (plus, for strings, one over the body limit)
        const bad = [...wrong.filter((w) => kind(w) !== kind(r.valid[field])), ...(kind(r.valid[field]) === 'string' ? ['x'.repeat(2_200_000)] : [])];
        for (const w of bad) yield { path: r.path, body: JSON.stringify({ ...r.valid, [field]: w }), what: `${field}=${JSON.stringify(w)?.slice(0, 20)}` };
        const missing = { ...r.valid };
        delete missing[field];
        yield { path: r.path, body: JSON.stringify(missing), what: `missing ${field}` };
      }
      yield { path: r.path, body: JSON.stringify({ ...r.valid, unexpected: 1 }), what: 'unknown field' };
      yield { path: r.path, body: '{"a":'.repeat(5_000) + '1' + '}'.repeat(5_000), what: 'deep nesting' };
      yield { path: r.path, body: Buffer.concat([Buffer.from('{"agent":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}')]), what: 'invalid UTF-8' };
      yield { path: r.path, body: '{"__proto__": {"polluted": true}}', what: 'prototype key' };
      yield { path: r.path, body: 'not json at all', what: 'not JSON' };
      yield { path: r.path, body: '[1,2,3]', what: 'array body' };
      yield { path: r.path, body: '', what: 'empty body' };
    }
    // each field of a memory, wrong, inside an otherwise valid body
    const memoryField: Record<string, unknown[]> = {
      kind: [42, 'rumour', null],
      text: [42, '', null, 'x'.repeat(100_001)],
      terms: ['not-an-array', [42], [null]],
      entities: ['x', [{}]],
      tags: [7, [[]]],
      occurred_at: ['yesterday', 12345, '2026-13-45T00:00:00Z'],
      supersede_ids: ['m1', [42], ['   ']],
      id: ['   ', 'a\u0000b', 'x'.repeat(513), 42, ''],
      session_id: [42, ''],
      attachments: ['x', [42]],
      audience: ['team', [7]],
      owner: [42],
    };
    for (const [field, values] of Object.entries(memoryField)) {
      for (const v of values)
        yield {
          path: '/v1/memories',
          body: JSON.stringify({ memories: [{ kind: 'fact', text: 'fine', [field]: v }] }),
          what: `memory ${field}=${JSON.stringify(v).slice(0, 20)}`,
        };
    }
    // memories with bad entries inside an otherwise valid batch
    for (const w of wrong.filter((x) => typeof x !== 'string'))
      yield {
        path: '/v1/memories',
        body: JSON.stringify({
          memories: [
            { kind: 'fact', text: 'fine' },
            { kind: 'fact', text: w },
          ],
        }),
        what: `batch text=${kind(w)}`,
      };
  }

  it('answers at least 200 malformed bodies with 4xx, stays up, and appends nothing', async () => {
    const headBefore = s.state.store!.log.head();
    const bodies = [...badBodies()];
    expect(bodies.length).toBeGreaterThanOrEqual(200);
    const failures: string[] = [];
    for (const b of bodies) {
      const res = await fetch(`${s.url}${b.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: b.body });
      if (res.status < 400 || res.status >= 500) failures.push(`${b.path} ${b.what} → ${res.status}`);
      const json = (await res.json().catch(() => ({}))) as { error?: { code?: string } };
      if (!json.error?.code) failures.push(`${b.path} ${b.what}: no error code`);
    }
    expect(failures).toEqual([]);
    expect((await s.call('GET', '/v1/health')).status).toBe(200);
    expect(s.state.store!.log.head()).toEqual(headBefore);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('load', () => {
  it('captures every one of 16 × 50 concurrent turns exactly once, with no 5xx, and the chain verifies', async () => {
    const s = await startTestServer();
    try {
      await s.call('POST', '/v1/memories', {
        memories: Array.from({ length: 50 }, (_, i) => ({ kind: 'fact', text: `fact ${i} about deploys, billing and rollbacks` })),
      });
      const latencies: number[] = [];
      const statuses = new Map<number, number>();
      const started = performance.now();
      const turnIds = new Set<string>();
      await Promise.all(
        Array.from({ length: 16 }, async (_, c) => {
          const open = await s.call('POST', '/v1/sessions/open', { agent: `client-${c}` });
          for (let t = 0; t < 50; t++) {
            const t0 = performance.now();
            const start = await s.call('POST', '/v1/turns/start', {
              session_id: open.body['session_id'],
              query: `client ${c} turn ${t}: how do we roll back billing?`,
            });
            const done = await s.call('POST', `/v1/turns/${start.body['turn_id']}/complete`, { answer: `answer ${t}` });
            latencies.push(performance.now() - t0);
            for (const st of [start.status, done.status]) statuses.set(st, (statuses.get(st) ?? 0) + 1);
            turnIds.add(start.body['turn_id'] as string);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      latencies.sort((a, b) => a - b);
      process.stdout.write(
        `load: ${(800 / seconds).toFixed(1)} turns/s, p50 ${latencies[400]?.toFixed(1)} ms, p99 ${latencies[792]?.toFixed(1)} ms per start+complete\n`,
      );
      expect([...statuses.keys()]).toEqual([200]);
      expect(turnIds.size).toBe(800);
      let started_ = 0;
      let completed = 0;
      for await (const r of s.state.store!.log.read({ types: ['turn.started', 'turn.completed'] })) r.type === 'turn.started' ? started_++ : completed++;
      expect([started_, completed]).toEqual([800, 800]);
      expect((await s.state.store!.log.verify()).ok).toBe(true);
    } finally {
      await s.stop();
    }
    // 800 turns in process: 30.1 s in the clean-clone CI run (the default 30 s limit), more at load 12
  }, 90_000);
});

describe('restart mid-load', () => {
  const serve = (dataDir: string, port: number): Promise<ChildProcess> => serveProcess(dataDir, port);

  it.each(['SIGTERM', 'SIGKILL'] as const)(
    'loses nothing acknowledged when the server gets %s',
    async (signal) => {
      const dir = tempDir();
      try {
        const port = await freePort();
        const child = await serve(dir.path, port);
        const acked: string[] = [];
        let stop = false;
        const writers = Array.from({ length: 8 }, async (_, w) => {
          for (let i = 0; !stop; i++) {
            const id = `w${w}-${i}`;
            try {
              const res = await fetch(`http://127.0.0.1:${port}/v1/memories`, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({ memories: [{ id, kind: 'fact', text: `memory ${id}` }] }),
              });
              if (res.status === 200) acked.push(id);
              else return; // 503 while shutting down: a real client backs off
            } catch {
              return; // the server went away
            }
          }
        });
        // bounded: a server that stops acknowledging fails the test here, not at the suite timeout
        const deadline = Date.now() + 20_000;
        while (acked.length < 150 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        expect(acked.length).toBeGreaterThanOrEqual(150);
        const exited = new Promise((r) => child.once('exit', r));
        child.kill(signal);
        await exited;
        stop = true;
        await Promise.all(writers);

        // every acknowledged write is in the log, and the chain verifies
        const db = await openLevelStore(dir.path, { createIfMissing: false });
        expect((await verifyChain(db)).ok).toBe(true);
        await db.close();
        const log = await openLog(dir.path, { createIfMissing: false });
        const ids = new Set<string>();
        for await (const r of log.read({ types: ['memory.written'] })) ids.add((r.data as { id: string }).id);
        await log.close();
        expect(acked.filter((id) => !ids.has(id))).toEqual([]);

        // and the server comes back on the same data
        const again = await serve(dir.path, port);
        const health = (await (await fetch(`http://127.0.0.1:${port}/v1/health`)).json()) as { ready: boolean; head: { seq: number } };
        expect(health.ready).toBe(true);
        expect(health.head.seq).toBeGreaterThanOrEqual(acked.length);
        const exited2 = new Promise((r) => again.once('exit', r));
        again.kill('SIGTERM');
        await exited2;
      } finally {
        dir.cleanup();
      }
    },
    60_000,
  );
});
