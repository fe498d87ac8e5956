// peekType reads a frame's event type without decoding its body (a rebuild hands its fold worker
// only the types it folds, src/log/codec.ts): for every encoding of seq and ts a body can carry,
// and falling back to a full decode for any other layout.
import { Packr } from 'msgpackr';
import { expect, it } from 'vitest';
import { EVENT_TYPES } from '../src/events/index.js';
import { GENESIS_PREV, encodeBody, encodeFrame, peekType } from '../src/log/codec.js';

const envelope = (type: string, seq: number, ts: number) => ({ seq, ts, type, v: 1, ns: 'private', actor: 'test', data: { note: 'é ✓' } });

it('reads every catalog type whatever the size of seq and ts', () => {
  const seqs = [1, 127, 128, 255, 256, 65_535, 65_536, 2 ** 32 - 1, 2 ** 32 + 5, Number.MAX_SAFE_INTEGER];
  const times = [0, 5, 1_700_000_000_000, Date.now(), 2 ** 40 + 0.5];
  for (const type of EVENT_TYPES)
    for (const seq of seqs)
      for (const ts of times)
        expect(peekType(encodeFrame(GENESIS_PREV, encodeBody(envelope(type, seq, ts) as never)).frame), `${type} ${seq} ${ts}`).toBe(type);
});

it('reads the type from its place, not from a decode (the rest of the body is not looked at)', () => {
  const frame = encodeFrame(GENESIS_PREV, encodeBody(envelope('turn.completed', 70_000, Date.now()) as never)).frame;
  const cut = frame.indexOf('turn.completed', 0, 'latin1') + 'turn.completed'.length;
  expect(peekType(frame.subarray(0, cut))).toBe('turn.completed'); // what follows the type is gone: a decode would throw
});

it('falls back to decoding a body laid out otherwise: other key order, a long type, a non-ASCII type', () => {
  const other = new Packr({ useRecords: false, moreTypes: false });
  const reordered = other.pack({ type: 'memory.written', seq: 3, ts: 4, v: 1, ns: 'private', actor: 'a', data: {} });
  expect(peekType(encodeFrame(GENESIS_PREV, reordered).frame)).toBe('memory.written');
  const long = 'x.'.repeat(40);
  expect(peekType(encodeFrame(GENESIS_PREV, encodeBody(envelope(long, 9, 9) as never)).frame)).toBe(long);
  expect(peekType(encodeFrame(GENESIS_PREV, encodeBody(envelope('mémoire.écrite', 9, 9) as never)).frame)).toBe('mémoire.écrite');
});
