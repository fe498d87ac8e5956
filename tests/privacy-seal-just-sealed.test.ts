// A sealer answers the texts it sealed itself from memory the first time a reader opens them (the
// projection runner opens each record right after its append: src/privacy/seal.ts, JustSealed),
// instead of decrypting them. What a reader gets must be what decrypting gives, in every case:
// the plain text while the key is held, PURGED_TEXT once a purge deleted it, whatever was kept.
import { describe, expect, it } from 'vitest';
import type { LogRecord, ValidatedEvent } from '../src/events/index.js';
import { FileKeyStore } from '../src/privacy/seal-keys.js';
import { PURGED_TEXT, openRecord, sealer, unitMatcher } from '../src/privacy/seal.js';

const written = (id: string, text: string): ValidatedEvent => ({
  type: 'memory.written',
  v: 1,
  ns: 'private',
  actor: 'test',
  data: { id, kind: 'fact', text, terms: [`${text} term`], tags: ['tag'] },
});
const turn = (session: string, query: string): ValidatedEvent => ({
  type: 'turn.started',
  v: 1,
  ns: 'private',
  actor: 'test',
  data: { turn_id: `t-${session}`, session_id: session, query, conversation: [{ role: 'user', text: `${query} said` }] },
});
const record = (e: ValidatedEvent): LogRecord => ({ ...e, seq: 1, ts: '2026-12-05T00:00:00.000Z' }) as unknown as LogRecord;

describe('texts a sealer just sealed', () => {
  it('open as decrypting opens them, the first time and after', () => {
    const keys = new FileKeyStore(undefined);
    const seal = sealer(keys);
    const sealed = seal.guard([written('a', 'alpha words'), turn('s1', 'what about alpha'), written('b', '')]);
    for (const e of sealed) {
      const decrypted = openRecord(record(e), (kid) => keys.key(kid));
      expect(seal.open(record(e)).data).toEqual(decrypted.data); // from memory
      expect(seal.open(record(e)).data).toEqual(decrypted.data); // decrypted: the first open took it
    }
    expect(seal.open(record(sealed[0] as ValidatedEvent)).data).toMatchObject({ text: 'alpha words', terms: ['alpha words term'], tags: ['tag'] });
    expect(seal.open(record(sealed[1] as ValidatedEvent)).data).toMatchObject({ query: 'what about alpha', conversation: [{ text: 'what about alpha said' }] });
  });

  it('read as purged once their unit was purged, before any reader opened them', () => {
    const keys = new FileKeyStore(undefined);
    const seal = sealer(keys);
    const sealed = seal.guard([written('gone', 'secret plans'), written('kept', 'kept words'), turn('s-gone', 'secret question'), turn('s-kept', 'kept question')]);
    keys.purge(unitMatcher('memory', 'private', 'gone'));
    seal.keys.purge(unitMatcher('session', 'private', 's-gone')); // through the sealer's keys: what it kept is dropped too
    const [gone, kept, goneTurn, keptTurn] = sealed.map((e) => seal.open(record(e)).data as Record<string, unknown>);
    expect(gone).toMatchObject({ text: PURGED_TEXT, terms: [PURGED_TEXT], tags: [PURGED_TEXT] });
    expect(goneTurn).toMatchObject({ query: PURGED_TEXT, conversation: [{ text: PURGED_TEXT }] });
    expect(kept).toMatchObject({ text: 'kept words' });
    expect(keptTurn).toMatchObject({ query: 'kept question' });
    // and again (nothing kept now): decrypting answers the same
    for (const e of sealed) expect(seal.open(record(e)).data).toEqual(openRecord(record(e), (kid) => keys.key(kid)).data);
    expect(JSON.stringify(sealed.map((e) => seal.open(record(e)).data))).not.toMatch(/secret/u);
  });

  it('answer only the exact sealed text: another sealer\u2019s, a changed one or one long evicted is decrypted', () => {
    const keys = new FileKeyStore(undefined);
    const seal = sealer(keys);
    const other = sealer(new FileKeyStore(undefined));
    const foreign = other.guard([written('x', 'foreign words')])[0] as ValidatedEvent;
    expect(seal.open(record(foreign)).data).toMatchObject({ text: PURGED_TEXT }); // not this store's key
    const mine = seal.guard([written('y', 'my words')])[0] as ValidatedEvent;
    const text = (mine.data as { text: string }).text;
    const changed = { ...mine, data: { ...(mine.data as object), text: `${text.slice(0, -3)}AA${text.slice(-1)}` } } as ValidatedEvent;
    expect(seal.open(record(changed)).data).toMatchObject({ text: PURGED_TEXT }); // does not authenticate
    // 10,000 more texts than it keeps: the first ones are decrypted, and still open
    const many = seal.guard(Array.from({ length: 5_000 }, (_, i) => written(`m${i}`, `text number ${i}`)));
    for (const i of [0, 1, 2_500, 4_999]) expect(seal.open(record(many[i] as ValidatedEvent)).data).toMatchObject({ text: `text number ${i}`, terms: [`text number ${i} term`] });
    expect(seal.open(record(mine)).data).toMatchObject({ text: 'my words' });
  });
});
