// What the contract's cases append and check with: events, a partial match in the manner of
// toMatchObject (node:assert has none), rejections, reading helpers, raw frames of a newer writer.
import assert from 'node:assert/strict';
import { KiokuError } from '../../errors.js';
import type { AppendInput } from '../../events/index.js';
import { GENESIS_PREV, decodeBody, encodeBody, encodeFrame, splitFrame } from '../codec.js';
import type { ChainFrame, EventStore, ReadOptions } from '../port.js';
import type { CaseContext } from './types.js';

export function jobEvent(i: number, ns = 'private'): AppendInput {
  return { type: 'job.event', ns, actor: 'test', data: { job_id: `job-${i}`, stage: 'embed', status: 'running', detail: `step ${i}` } };
}

export function memoryEvent(id: string, text: string, ns = 'private'): AppendInput {
  return { type: 'memory.written', ns, actor: 'test', data: { id, kind: 'fact', text } };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);
}

/** `actual` holds every field of `expected` (recursively; arrays element by element, same length). */
export function assertMatches(actual: unknown, expected: unknown, path = 'value'): void {
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${path}: expected an array, got ${JSON.stringify(actual)}`);
    assert.equal(actual.length, expected.length, `${path}: expected ${expected.length} elements, got ${actual.length}`);
    expected.forEach((e, i) => assertMatches(actual[i], e, `${path}[${i}]`));
  } else if (isPlainObject(expected)) {
    assert.ok(typeof actual === 'object' && actual !== null, `${path}: expected an object, got ${JSON.stringify(actual)}`);
    for (const [key, e] of Object.entries(expected)) assertMatches((actual as Record<string, unknown>)[key], e, `${path}.${key}`);
  } else assert.deepEqual(actual, expected, `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

/** The rejection of `attempt` (fails when it resolves). */
export async function rejection(attempt: Promise<unknown>): Promise<unknown> {
  const outcome = await attempt.then(
    () => ({ resolved: true as const }),
    (err: unknown) => ({ resolved: false as const, err }),
  );
  assert.ok(!outcome.resolved, 'expected a rejection, the call resolved');
  return outcome.err;
}

export async function rejectsWith(attempt: Promise<unknown>, expected: Record<string, unknown>): Promise<unknown> {
  const err = await rejection(attempt);
  assert.ok(err instanceof KiokuError, `expected a KiokuError, got ${String(err)}`);
  assertMatches(err, expected, 'error');
  return err;
}

export async function all<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of source) out.push(item);
  return out;
}

export async function seqsOf(log: EventStore, options: ReadOptions = {}): Promise<number[]> {
  return (await all(log.read(options))).map((r) => r.seq);
}

export async function framesOf(log: EventStore, from: number, to: number): Promise<Uint8Array[]> {
  return (await all(log.readFrames({ from, to }))).flat();
}

/** One stored frame with its parts, as an export (`kioku log export`) hands it to importChain. */
export function chainFrame(value: Uint8Array): ChainFrame {
  const parts = splitFrame(value);
  assert.ok(parts, 'a value that is not a frame');
  const body = decodeBody(parts.body);
  return {
    seq: body.seq,
    type: body.type,
    ns: body.ns,
    ts: body.ts,
    frame: Buffer.from(value),
    hash: Buffer.from(parts.hash),
    prev: Buffer.from(parts.prev),
    body: Buffer.from(parts.body),
  };
}

/** The whole stored chain of `log`, frame by frame. */
export async function chainFrames(log: EventStore): Promise<ChainFrame[]> {
  return (await framesOf(log, 1, log.head().seq)).map(chainFrame);
}

export async function* iterate<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}

/** Wait until `check` holds (another log hears of a commit asynchronously). */
export async function eventually(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new assert.AssertionError({ message: `timed out waiting for ${what}` });
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Frames as a newer writer stored them: `records` chained from genesis, the head after the last. */
export function rawChain(records: { type: string; v: number; data: unknown }[]): {
  frames: { seq: number; type: string; frame: Buffer }[];
  head: { seq: number; hash: Buffer; ts: number };
} {
  let prev: Uint8Array = GENESIS_PREV;
  const frames = records.map((r, i) => {
    const { frame, hash } = encodeFrame(prev, encodeBody({ seq: i + 1, ts: i + 1, type: r.type, v: r.v, ns: 'private', actor: 'x', data: r.data }));
    prev = hash;
    return { seq: i + 1, type: r.type, frame };
  });
  return { frames, head: { seq: records.length, hash: Buffer.from(prev), ts: records.length } };
}

export async function withAnother<T>(t: CaseContext, task: (other: EventStore) => Promise<T>): Promise<T> {
  assert.ok(t.store.openAnother, 'the manifest declares shared, but the store has no openAnother()');
  const other = await t.store.openAnother();
  try {
    return await task(other);
  } finally {
    await other.close();
  }
}
