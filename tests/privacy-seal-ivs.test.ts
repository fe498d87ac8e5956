// Sealing draws its IVs from a pool of random bytes (src/privacy/seal.ts, nextIv): each sealed text
// still gets its own IV, across the pool's refills, and opens back to its plaintext.
import { describe, expect, it } from 'vitest';
import type { LogRecord, ValidatedEvent } from '../src/events/index.js';
import { FileKeyStore } from '../src/privacy/seal-keys.js';
import { openRecord, sealer } from '../src/privacy/seal.js';

describe('sealed texts each get their own IV', () => {
  it('2,000 texts (four refills of the pool) carry 2,000 distinct IVs and open back', () => {
    const keys = new FileKeyStore(undefined);
    const seal = sealer(keys);
    const events: ValidatedEvent[] = Array.from({ length: 1000 }, (_, i) => ({
      type: 'memory.written',
      v: 1,
      ns: 'private',
      actor: 'test',
      // the same text twice per event and across events: only the IV tells their ciphertexts apart
      data: { id: `m${i % 10}`, kind: 'fact', text: 'the same words', terms: ['the same words'] },
    }));
    const sealed = seal.guard(events);
    const texts = sealed.flatMap((e) => {
      const d = e.data as { text: string; terms: string[] };
      return [d.text, ...d.terms];
    });
    expect(texts).toHaveLength(2000);
    const ivs = texts.map((t) => {
      const body = /^⟦sealed:[^:]+:(.+)⟧$/u.exec(t)?.[1];
      expect(body).toBeDefined();
      return Buffer.from(body as string, 'base64').subarray(0, 12).toString('hex');
    });
    expect(new Set(ivs).size).toBe(2000);
    // decrypted (openRecord), not answered from the sealer's texts it just sealed (seal.open)
    for (const e of sealed.slice(0, 50)) {
      const opened = openRecord({ ...e, seq: 1, ts: '2026-12-04T00:00:00.000Z' } as unknown as LogRecord, (kid) => keys.key(kid));
      expect(opened.data).toMatchObject({ text: 'the same words', terms: ['the same words'] });
    }
  });
});
