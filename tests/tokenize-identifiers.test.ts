// An identifier written in camelCase or PascalCase gives its words as tokens beside the whole
// identifier (issue 30: the Vitest docs name options `hookTimeout`, `reportsDirectory`,
// `fakeTimers.toFake`; people ask about "hook timeout"). The whole token stays, so a search for
// the exact identifier still works; the query side (keyword lanes, the judge's coverage, the
// partial-match terms, the passage chosen, the unknown-name rule) reads the same tokens.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { KeywordProjection } from '../projections/index.js';
import { readSnapshotFile, writeSnapshotFile, type SnapshotFile } from '../projections/snapshot-file.js';
import { openKioku } from '../src/kioku.js';
import { Knowledge } from '../src/knowledge/index.js';
import { coverageUnits, unitCoverage } from '../src/recall/judge/coverage.js';
import { nameTerms } from '../src/recall/names.js';
import { matchedTerms, utteranceTerms } from '../src/recall/terms.js';
import { passageFor } from '../src/text/passage.js';
import { queryTokens, tokenize } from '../src/text/index.js';
import { memoryStore, tempDir } from './helpers.js';

const TABLE: [string, string[]][] = [
  ['hookTimeout', ['hooktimeout', 'hook', 'timeout']],
  ['reportsDirectory', ['reportsdirectory', 'report', 'directory']],
  ['fakeTimers.toFake', ['faketimer', 'fake', 'timer', 'tofake', 'fake', 'faketimers.tofake']],
  ['vi.useFakeTimers()', ['vi', 'usefaketimer', 'use', 'fake', 'timer', 'vi.usefaketimers']],
  ['coverage.reportsDirectory', ['coverage', 'reportsdirectory', 'report', 'directory', 'coverage.reportsdirectory']],
  ['HTMLParser', ['htmlparser', 'html', 'parser']],
  ['getURLs', ['geturl', 'get', 'url']],
  ['IDs and URLs', ['ids', 'url']],
  ['v2Config', ['v2config', 'v2', 'config']],
  ['es2015', ['es2015']],
  ['JSON Vitest', ['json', 'vitest']],
  ['toBe', ['tobe']],
  ['Foo.Bar', ['foo', 'bar', 'foo.bar']],
  ['snake_case_name', ['snake', 'case', 'name', 'snake_case_name']],
  ['isolate: false', ['isolate', 'false']],
  // NFKC first: fullwidth letters are the ASCII ones
  ['ｈｏｏｋＴｉｍｅｏｕｔ', ['hooktimeout', 'hook', 'timeout']],
  ['设置 hookTimeout 的值', ['设置', 'hooktimeout', 'hook', 'timeout', '的值']],
  ['ÉtéDurée', ['étédurée', 'été', 'durée']],
  ['onMounted 钩子', ['onmount', 'mount', '钩子']],
];

describe('tokenize: identifier words', () => {
  it.each(TABLE)('%s', (text, tokens) => {
    expect(tokenize(text)).toEqual(tokens);
  });

  it('keeps stop words among the words when asked', () => {
    expect(tokenize('toBe', { keepStopWords: true })).toEqual(['tobe', 'to', 'be']);
  });

  it('gives only the whole identifier with identifierParts off (the hashed embedder, names) and in a question (queryTokens)', () => {
    expect(queryTokens('When are we moving search to OpenSearch?')).toEqual(['mov', 'search', 'opensearch']);
    expect(tokenize('vi.useFakeTimers and hookTimeout', { identifierParts: false })).toEqual(['vi', 'usefaketimer', 'vi.usefaketimers', 'hooktimeout']);
    expect(tokenize('hookTimeout ©', { identifierParts: false })).toEqual(['hooktimeout']);
  });
});

describe('the query side reads the same tokens', () => {
  it('keyword search: "hook timeout" finds the identifier as a complete match, the identifier still finds itself, unsplit', async () => {
    const store = await memoryStore();
    try {
      await store.knowledge.writeMemories({
        memories: [
          { id: 'hook', kind: 'fact', text: 'Set hookTimeout to 30000 for slow database fixtures.' },
          { id: 'other', kind: 'fact', text: 'A timeout on the database fixture is logged.' },
        ],
      });
      const keyword = store.projections.get<KeywordProjection>('keyword');
      const hits = keyword.search('hook timeout', { namespaces: ['private'] });
      expect(hits[0]).toMatchObject({ key: expect.stringMatching(/:hook$/), complete: true });
      // a question's identifier stays whole (queryTokens): 'other' holds "timeout" but not hookTimeout
      expect(keyword.search('hookTimeout', { namespaces: ['private'] }).map((h) => h.key.split(':').pop())).toEqual(['hook']);
    } finally {
      await store.close();
    }
  });

  it("partial-match terms and the judge's coverage count the identifier's words", () => {
    const text = 'hookTimeout: default 10_000 in Node.js';
    expect([...matchedTerms(utteranceTerms('default hook timeout'), text)].sort()).toEqual(['default', 'hook', 'timeout']);
    expect([...utteranceTerms('When are we moving search to OpenSearch?')]).toEqual(['mov', 'search', 'opensearch']);
    const units = coverageUnits('What is the default hook timeout?', () => 1);
    expect(unitCoverage(units, new Set(tokenize(text)))).toBe(1);
  });

  it('the passage delivered is the one holding the identifier the question spells out', () => {
    const filler = (n: number): string => Array.from({ length: n }, (_, i) => `Line ${i} about coverage reporters and thresholds.`).join('\n\n');
    const text = `## coverage\n\n${filler(60)}\n\nSet \`coverage.reportsDirectory\` to change the output folder.\n\n${filler(60)}`;
    const chosen = passageFor(text, 2_000, 'which reports directory is used');
    expect(chosen.passage?.index).toBeGreaterThan(1);
    expect(chosen.text).toContain('reportsDirectory');
  });

  it('the unknown-name rule still reads a name with an inner capital as one name', () => {
    expect(nameTerms('How do I set up GraphQL with Vitest?')).toEqual(['graphql', 'vitest']);
    expect(nameTerms('Does useFakeTimers fake nextTick?')).toEqual(['usefaketimer', 'nexttick']);
  });
});

const dirs: ReturnType<typeof tempDir>[] = [];
afterAll(() => dirs.forEach((d) => d.cleanup()));

it('a keyword snapshot of version 1 (tokens without identifier words) is refused and refolded as a fresh fold', async () => {
  const dir = tempDir('kioku-keyword-v1-');
  dirs.push(dir);
  let store = await openKioku({ data: dir.path });
  await new Knowledge(store, 'test').writeMemories({ memories: [{ id: 'hook', kind: 'fact', text: 'Set hookTimeout to 30000 for slow fixtures.' }] });
  await store.close(); // writes a v2 snapshot
  const folder = join(dir.path, 'projections');
  const snap = readSnapshotFile(folder, 'keyword') as SnapshotFile;
  expect(snap.version).toBe(3);
  writeSnapshotFile(folder, { ...snap, version: 1 }); // as the code before identifier words labelled it
  store = await openKioku({ data: dir.path });
  try {
    const status = store.projections.status().find((s) => s.name === 'keyword');
    expect(status).toMatchObject({ source: 'genesis', discarded: 'written by keyword v1, need v3' });
    const refolded = store.projections.digests()['keyword'];
    const hits = store.projections.get<KeywordProjection>('keyword').search('hook timeout', { namespaces: ['private'] });
    expect(hits.map((h) => [h.key.split(':').pop(), h.complete])).toEqual([['hook', true]]);
    await store.projections.rebuild(['keyword']);
    expect(store.projections.digests()['keyword']).toBe(refolded);
  } finally {
    await store.close();
  }
});
