// Records, keyword and vector each run a KnowledgeFold; the first to meet a record keeps its
// item changes and state edits for the others (src/knowledge/fold.ts). Folds that share work
// must end in exactly the state and changes of a fold that computed everything itself —
// including one that started from a copy of another's state halfway (a snapshot).
import { expect, it } from 'vitest';
import type { AppendInput, LogRecord } from '../src/events/index.js';
import { KnowledgeFold } from '../src/knowledge/index.js';
import { memoryStore } from './helpers.js';

const events: AppendInput[] = [
  { type: 'memory.written', actor: 't', data: { id: 'm1', kind: 'fact', text: 'Staging uses pg-2.', terms: ['staging'] } },
  {
    type: 'card.upserted',
    actor: 't',
    data: {
      id: 'c1',
      title: 'Billing',
      content_hash: 'a'.repeat(64),
      sections: [
        { id: 'inv', heading: 'Invoices', body: 'First of the month.' },
        { id: 'grade', heading: 'Grade', body: 'A' },
      ],
    },
  },
  { type: 'turn.started', actor: 't', data: { turn_id: 't1', session_id: 's1', query: 'who owns billing?', speaker: 'Dana' } },
  { type: 'turn.completed', actor: 't', data: { turn_id: 't1', session_id: 's1', answer: 'Lee does.' } },
  {
    type: 'card.upserted',
    actor: 't',
    data: { id: 'c1', title: 'Billing', content_hash: 'b'.repeat(64), sections: [{ id: 'inv', heading: 'Invoices', body: 'The second of the month.' }] },
  },
  { type: 'turn.started', actor: 't', data: { turn_id: 't2', session_id: 's1', query: 'and the grade?' } },
  { type: 'memory.written', actor: 't', data: { id: 'm2', kind: 'fact', text: 'Staging uses pg-3.', supersedes: ['m1'] } },
  { type: 'card.removed', actor: 't', data: { id: 'c1' } },
  { type: 'turn.completed', actor: 't', data: { turn_id: 't2', session_id: 's1', answer: 'Removed.' } },
];

async function readAll(store: Awaited<ReturnType<typeof memoryStore>>): Promise<LogRecord[]> {
  const out: LogRecord[] = [];
  for await (const r of store.log.read()) out.push(r);
  return out;
}

it('folds that share a record’s work end in the state and changes of one that did it all', async () => {
  const store = await memoryStore();
  try {
    await store.log.appendAll(events);
    const records = await readAll(store);
    const fresh = await readAll(store); // other objects: nothing shared with `records`
    const alone = new KnowledgeFold();
    const expected = fresh.map((r) => structuredClone(alone.changes(r)));
    const half = Math.floor(records.length / 2);

    const first = new KnowledgeFold();
    const second = new KnowledgeFold();
    const late = new KnowledgeFold();
    let midway: unknown;
    const got: { first: unknown[]; second: unknown[]; late: unknown[] } = { first: [], second: [], late: [] };
    records.forEach((r, i) => {
      if (i === half) late.load(structuredClone(first.state));
      got.first.push(structuredClone(first.changes(r)));
      got.second.push(structuredClone(second.changes(r)));
      if (i >= half) got.late.push(structuredClone(late.changes(r)));
      if (i === half) midway = structuredClone(second.state);
    });
    expect(got.first).toEqual(expected);
    expect(got.second).toEqual(expected);
    expect(got.late).toEqual(expected.slice(half));
    for (const fold of [first, second, late]) expect(fold.state).toEqual(alone.state);
    expect(midway).not.toEqual(alone.state); // the fixture does change the state after midway
    expect(alone.state).toEqual({ docs: {}, turns: {} });
  } finally {
    await store.close();
  }
});

it('a fold that reads keys only (vector) meeting a record first leaves fingerprints to the folds that need them', async () => {
  const store = await memoryStore();
  try {
    await store.log.appendAll(events);
    const records = await readAll(store);
    const alone = new KnowledgeFold();
    const expected = (await readAll(store)).map((r) => structuredClone(alone.changes(r)));
    const keysFirst = new KnowledgeFold();
    const full = new KnowledgeFold();
    const keysAfter = new KnowledgeFold();
    const got: { keys: unknown[]; full: unknown[]; after: unknown[] } = { keys: [], full: [], after: [] };
    for (const r of records) {
      got.keys.push(structuredClone(keysFirst.changes(r, true)));
      got.full.push(structuredClone(full.changes(r)));
      got.after.push(structuredClone(keysAfter.changes(r, true)));
    }
    expect(got.full).toEqual(expected); // fingerprints and all
    expect(got.after).toEqual(expected); // a keys-only fold may take a full step
    const keysOf = (steps: unknown[]) =>
      (steps as { op: string; key?: string; item?: { key: string; ns: string; layer: string } }[][]).map((s) =>
        s.map((c) => [c.op, c.key ?? c.item?.key, c.item?.ns, c.item?.layer]),
      );
    expect(keysOf(got.keys)).toEqual(keysOf(expected));
    expect((got.keys[0] as { item: { content_fp: string } }[])[0]?.item.content_fp).toBe(''); // it did skip them
    for (const fold of [keysFirst, full, keysAfter]) expect(fold.state).toEqual(alone.state);
  } finally {
    await store.close();
  }
});
