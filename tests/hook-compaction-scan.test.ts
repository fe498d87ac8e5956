// The hook finds the last compaction in a transcript of any length: the dialogue comes from the
// last 512 KB, the compaction is looked for further back in chunks read backwards, bounded in
// bytes and time (and says when it stopped at a bound).
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastCompactionBefore, readTranscriptTail } from '../src/hook/transcript.js';
import { tempDir } from './helpers.js';

const dir = tempDir('kioku-transcript-');
afterAll(() => dir.cleanup());

const line = (o: unknown): string => `${JSON.stringify(o)}\n`;
const user = (text: string, at: string): string => line({ type: 'user', message: { role: 'user', content: text }, timestamp: at, sessionId: 's' });
const assistant = (text: string, at: string): string =>
  line({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text }] }, timestamp: at, sessionId: 's' });
const boundary = (at: string): string =>
  line({ type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', timestamp: at, sessionId: 's' });
/** tool traffic, as long sessions are mostly made of: ~`bytes` of it */
const filler = (bytes: number): string => {
  const one = line({
    type: 'user',
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'x'.repeat(2_000) }] },
    timestamp: '2026-11-29T11:30:00.000Z',
  });
  return one.repeat(Math.ceil(bytes / one.length));
};

let big: string;
beforeAll(() => {
  big = join(dir.path, 'long-session.jsonl');
  writeFileSync(big, user('first question', '2026-11-29T09:00:00.000Z'));
  appendFileSync(big, boundary('2026-11-29T10:00:00.000Z'));
  appendFileSync(big, filler(2 * 1024 * 1024));
  appendFileSync(big, boundary('2026-11-29T11:00:00.000Z')); // the last one: ~5 MB before the end
  appendFileSync(big, user('the notes say "subtype":"compact_boundary" somewhere', '2026-11-29T11:01:00.000Z')); // mentions it, is not one
  appendFileSync(big, line({ type: 'system', content: 'not a compaction: the word "compacted" in a field value', timestamp: '2026-11-29T11:02:00.000Z' }));
  appendFileSync(big, filler(5 * 1024 * 1024));
  appendFileSync(big, user('How do we roll back billing?', '2026-11-29T12:00:00.000Z'));
  appendFileSync(big, assistant('Run scripts/rollback.sh billing.', '2026-11-29T12:00:05.000Z'));
});

describe('the last compaction, megabytes back', () => {
  it('is found 5 MB before the end, by its field; the dialogue still comes from the tail', () => {
    const t = readTranscriptTail(big);
    expect(t.context_since).toBe('2026-11-29T11:00:00.000Z');
    expect(t.compaction_scan).toBeUndefined();
    expect(t.dialogue).toEqual([
      { role: 'user', content: 'How do we roll back billing?' },
      { role: 'assistant', content: 'Run scripts/rollback.sh billing.' },
    ]);
  });

  it('finds a record cut by a chunk boundary, whatever the chunk size', () => {
    const path = join(dir.path, 'cut.jsonl');
    writeFileSync(path, user('a'.repeat(300), '2026-11-29T09:00:00.000Z') + boundary('2026-11-29T10:00:00.000Z') + filler(20_000));
    const end = Buffer.byteLength(user('a'.repeat(300), '2026-11-29T09:00:00.000Z') + boundary('2026-11-29T10:00:00.000Z') + filler(20_000));
    for (const chunkBytes of [7, 64, 100, 333, 1024, 4096])
      expect(lastCompactionBefore(path, end, { maxBytes: 1e9, budgetMs: 10_000, chunkBytes }).at).toBe('2026-11-29T10:00:00.000Z');
  });

  it('stops at its byte bound and says so (the whole session then counts as visible)', () => {
    const t = readTranscriptTail(big, { compactionScan: { maxBytes: 1024 * 1024, budgetMs: 10_000, chunkBytes: 256 * 1024 } });
    expect(t.context_since).toBeUndefined();
    expect(t.compaction_scan).toEqual({ scanned_bytes: 1024 * 1024, stopped: 'bytes' });
    const timed = readTranscriptTail(big, { compactionScan: { maxBytes: 1e9, budgetMs: -1, chunkBytes: 256 * 1024 } });
    expect(timed.compaction_scan).toMatchObject({ stopped: 'time' });
  });

  it('reports no compaction, and no bound, in a long file that has none', () => {
    const path = join(dir.path, 'none.jsonl');
    writeFileSync(path, filler(1024 * 1024) + user('hello there', '2026-11-29T12:00:00.000Z'));
    const t = readTranscriptTail(path, { maxBytes: 64 * 1024 });
    expect(t.context_since).toBeUndefined();
    expect(t.compaction_scan).toBeUndefined();
  });
});
