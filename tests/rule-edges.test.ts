// Edges of the rule modules, each pinned exactly (written against the survivors of
// `npm run mutate`): delivery's helpers and ordering, acknowledgements, usage counters and
// evidence keys. A wrong change here is a wrong product.
import { describe, expect, it } from 'vitest';
import { UsageProjection } from '../projections/usage.js';
import { upcast, type LogRecord } from '../src/events/index.js';
import { documentKey, evidenceKey, fingerprint, idFromKeyPart, normaliseBody, parseEvidenceKey } from '../src/knowledge/evidence.js';
import { isAcknowledgement } from '../src/recall/acknowledge.js';
import {
  DEFAULT_DELIVERY_RULES,
  deliver,
  excerpt,
  isQuoted,
  isTruncatedSnippet,
  repairTitle,
  rulesWith,
  type DeliveryCandidate,
  type DeliveryState,
} from '../src/recall/delivery.js';
import { normaliseBody as norm } from '../src/knowledge/evidence.js';

const cand = (key: string, over: Partial<DeliveryCandidate> = {}): DeliveryCandidate => ({
  key,
  kind: 'knowledge',
  layer: 'memory',
  verdict: 0.9,
  title: key,
  text: `Text of ${key} that is long enough to matter.`,
  occurred_at: '2026-11-20T10:00:00.000Z',
  rank: 0,
  ...over,
});
const state = (over: Partial<DeliveryState> = {}): DeliveryState => ({ delivered: new Map(), assistant_texts: [], ...over });

describe('delivery rules, exactly', () => {
  it('orders by verdict, then fused rank, then key', () => {
    const r = deliver(
      [
        cand('k:c', { verdict: 0.8, rank: 2 }),
        cand('k:b', { verdict: 0.8, rank: 1 }),
        cand('k:a', { verdict: 0.8, rank: 1 }),
        cand('k:z', { verdict: 0.95, rank: 9 }),
      ],
      state(),
      { ...DEFAULT_DELIVERY_RULES, max_items: 4, hold_partial_matches: false },
    );
    expect(r.items.map((i) => i.key)).toEqual(['k:z', 'k:a', 'k:b', 'k:c']);
  });

  it('orders history the same way in its one slot: the best verdict wins, ties by rank', () => {
    const r = deliver(
      [cand('h:low', { kind: 'history', layer: 'note', verdict: 0.8, rank: 0 }), cand('h:high', { kind: 'history', layer: 'note', verdict: 0.9, rank: 5 })],
      state(),
      DEFAULT_DELIVERY_RULES,
    );
    expect(r.items.map((i) => i.key)).toEqual(['h:high']);
    expect(r.held.get('h:low')).toBe('no_slot');
    const tie = deliver(
      [cand('h:2', { kind: 'history', layer: 'note', verdict: 0.8, rank: 2 }), cand('h:1', { kind: 'history', layer: 'note', verdict: 0.8, rank: 1 })],
      state(),
      DEFAULT_DELIVERY_RULES,
    );
    expect(tie.items.map((i) => i.key)).toEqual(['h:1']);
  });

  it("holds this session's own traces from context_since on, and only those", () => {
    const st = state({ session_id: 's1', context_since: '2026-11-20T10:00:00.000Z' });
    const at = (t: string, session = 's1', layer = 'trace') =>
      cand(`t:${t}:${session}:${layer}`, { kind: 'history', layer, session_id: session, occurred_at: t });
    const r = deliver(
      [at('2026-11-20T10:00:00.000Z'), at('2026-11-20T09:59:59.000Z'), at('2026-11-20T11:00:00.000Z', 's2'), at('2026-11-20T11:00:00.000Z', 's1', 'note')],
      st,
      { ...DEFAULT_DELIVERY_RULES, max_items: 4, max_history: 4 },
    );
    expect(r.held.get('t:2026-11-20T10:00:00.000Z:s1:trace')).toBe('own_session'); // exactly at the boundary: still visible
    expect(r.held.has('t:2026-11-20T09:59:59.000Z:s1:trace')).toBe(false); // before the compaction: no longer visible
    expect(r.held.has('t:2026-11-20T11:00:00.000Z:s2:trace')).toBe(false);
    expect(r.held.has('t:2026-11-20T11:00:00.000Z:s1:note')).toBe(false);
    // without context_since the whole session is visible
    const all = deliver([at('2000-01-01T00:00:00.000Z')], state({ session_id: 's1' }));
    expect(all.held.get('t:2000-01-01T00:00:00.000Z:s1:trace')).toBe('own_session');
    // without a session, nothing is "own"
    expect(deliver([at('2026-11-20T10:00:00.000Z')], state()).held.size).toBe(0);
  });

  it('delivers again only what changed since every earlier delivery, never on an unknown version', () => {
    const delivered = (fps: (string | null)[]) => state({ delivered: new Map([['k:a', fps]]) });
    expect(deliver([cand('k:a', { fingerprint: 'new' })], delivered(['old'])).items).toHaveLength(1);
    expect(deliver([cand('k:a', { fingerprint: 'new' })], delivered(['old', 'new'])).held.get('k:a')).toBe('already_delivered');
    expect(deliver([cand('k:a', { fingerprint: 'new' })], delivered([null])).held.get('k:a')).toBe('already_delivered');
    expect(deliver([cand('k:a')], delivered(['old'])).held.get('k:a')).toBe('already_delivered');
    expect(deliver([cand('k:a', { fingerprint: 'x' })], delivered([])).items).toHaveLength(1);
  });

  it('keeps the fingerprint on a delivered item when it has one', () => {
    expect(deliver([cand('k:a', { fingerprint: 'fp1' })], state()).items[0]).toMatchObject({ fingerprint: 'fp1' });
    expect(deliver([cand('k:a')], state()).items[0]).not.toHaveProperty('fingerprint');
  });

  it('ignores empty assistant texts when looking for quotes', () => {
    expect(deliver([cand('k:a')], state({ assistant_texts: ['', '   '] })).items).toHaveLength(1);
  });

  it('recognises display-truncated snippets only at the very end', () => {
    for (const t of ['cut here…', 'cut here...', 'cut here [...]', 'cut here…  \n']) expect(isTruncatedSnippet(t)).toBe(true);
    for (const t of ['… and then it went on', 'a full sentence.', 'wait... then done', '…x']) expect(isTruncatedSnippet(t)).toBe(false);
  });

  it('sees a quote only for a body of 20 characters or more, probing long bodies by their first 120', () => {
    const said = [norm('As I said: Roll back with scripts/rollback.sh and the previous tag, then tell the team.')];
    expect(isQuoted('Roll back with scripts/rollback.sh and the previous tag', said)).toBe(true);
    expect(isQuoted('previous tag, then', said)).toBe(false); // 18 characters: too short to call a quote
    expect(isQuoted('with scripts/rollback.sh', said)).toBe(true); // 24: long enough
    const long = `${'Roll back with scripts/rollback.sh and the previous tag, '.repeat(3)}${'x'.repeat(100)}`;
    expect(long.length).toBeGreaterThan(200);
    expect(isQuoted(long, [norm(long.slice(0, 130))])).toBe(true);
    expect(isQuoted(long, [norm(long.slice(0, 110))])).toBe(false);
    const exact = 'y'.repeat(200);
    expect(isQuoted(exact, [norm(exact)])).toBe(true);
    expect(isQuoted(exact, [norm(exact.slice(0, 150))])).toBe(false); // ≤ 200: the whole body must appear
  });

  it('repairs titles with no letters or a hash, from the first sentence, cut at 120', () => {
    expect(repairTitle('Release checklist', 'x')).toBe('Release checklist');
    expect(repairTitle('12345', 'First sentence. Second one.')).toBe('First sentence.');
    expect(repairTitle('note 3fa9c2e1', 'Line one\nLine two')).toBe('Line one');
    expect(repairTitle('a1b2c3d4e5f6', 'Body.')).toBe('Body.');
    expect(repairTitle('deploy 3fa9…', 'The deploy steps! More.')).toBe('The deploy steps!');
    expect(repairTitle('Version 2 of the plan', 'x')).toBe('Version 2 of the plan');
    const long = 'w'.repeat(130);
    expect(repairTitle('----', long)).toBe(`${'w'.repeat(119)}…`);
    expect(repairTitle('----', 'v'.repeat(120))).toBe('v'.repeat(120));
  });

  it('cuts long bodies at paragraphs, then sentences, and labels them as excerpts', () => {
    expect(excerpt('short', 10)).toEqual({ text: 'short', excerpt: false });
    expect(excerpt('exactly10!', 10)).toEqual({ text: 'exactly10!', excerpt: false });
    expect(excerpt('para one\n\npara two\n  \npara three', 20)).toEqual({ text: 'para one\n\npara two', excerpt: true });
    expect(excerpt('para one\n\npara two', 17)).toEqual({ text: 'para one', excerpt: true });
    expect(excerpt('One sentence. Two sentence. Three sentence.', 30)).toEqual({ text: 'One sentence. Two sentence.', excerpt: true });
    expect(excerpt('One sentence. Two sentence. Three sentence.', 27)).toEqual({ text: 'One sentence. Two sentence.', excerpt: true });
    expect(excerpt('One sentence. Two sentence. Three sentence.', 26)).toEqual({ text: 'One sentence.', excerpt: true });
    expect(excerpt('好的。我们明天发布。然后回顾。', 12)).toEqual({ text: '好的。我们明天发布。', excerpt: true });
    expect(excerpt('One sentence. Two.', 13)).toEqual({ text: 'One sentence.', excerpt: true });
    expect(excerpt('nosentenceboundaryatallhere', 10)).toEqual({ text: 'nosentence', excerpt: true });
  });

  it('derives replay rules: the history cap follows a smaller item cap, and may not exceed it', () => {
    expect(rulesWith()).toEqual(DEFAULT_DELIVERY_RULES);
    expect(rulesWith({ max_items: 1 })).toMatchObject({ max_items: 1, max_history: Math.min(DEFAULT_DELIVERY_RULES.max_history, 1) });
    expect(rulesWith({ max_items: 0 })).toMatchObject({ max_items: 0, max_history: 0 });
    expect(rulesWith({ max_items: 3, max_history: 3 })).toMatchObject({ max_items: 3, max_history: 3 });
    expect(rulesWith({ floor: 0.7 })).toMatchObject({ ...DEFAULT_DELIVERY_RULES, floor: 0.7 });
    expect(() => rulesWith({ max_items: 1, max_history: 2 })).toThrow(
      expect.objectContaining({ code: 'KIOKU_INPUT_INVALID', details: { field: 'max_history' } }),
    );
    expect(() => rulesWith({ max_items: 1, max_history: 2 })).toThrow('max_history (2) cannot exceed max_items (1)');
  });
});

describe('acknowledgements, exactly', () => {
  // one test per direction (not it.each): mutation testing selects tests by name, and names made of
  // quotes and emoji are not reliably selected
  it('skips acknowledgements, however cased, padded, punctuated or phrased', () => {
    const acks = [
      '',
      `ok${' '.repeat(45)}`, // padding does not count toward the 40-character cap
      '   ',
      'OK',
      'THANKS!',
      'ｏｋ',
      '好的。',
      'ok, thank you',
      'ok thank you!',
      '👍🏽',
      'thanks 👍',
      'ok... thanks!!',
      'yes thank you',
      'cool, many thanks',
      'got it, thanks a lot',
      'yes please, go ahead',
    ];
    for (const t of acks) expect(isAcknowledgement(t), JSON.stringify(t)).toBe(true);
  });

  it('knows every phrase on its own', () => {
    // the whole list, written out: a phrase dropped from the code fails here (compounds such as
    // "ok thanks" or "good morning" are sequences of phrases, so they need no entry of their own)
    const phrases = [
      'ok',
      'okay',
      'k',
      'kk',
      'yes',
      'yep',
      'yeah',
      'yup',
      'sure',
      'right',
      'fine',
      'cool',
      'great',
      'nice',
      'perfect',
      'awesome',
      'got it',
      'gotcha',
      'understood',
      'noted',
      'roger',
      'ack',
      'thanks',
      'thank you',
      'thx',
      'ty',
      'cheers',
      'sounds good',
      'looks good',
      'lgtm',
      'good',
      'alright',
      'all right',
      'will do',
      'done',
      'hi',
      'hello',
      'hey',
      'good night',
      'good evening',
      'morning',
      'bye',
      'goodbye',
      'see you',
      'thanks a lot',
      'many thanks',
      'no problem',
      'np',
      'makes sense',
      'sounds great',
      'nice one',
      'go ahead',
      'continue',
      'go on',
      'yes please',
      'sure thing',
      '好',
      '好的',
      '好滴',
      '好哒',
      '好吧',
      '行',
      '行吧',
      '可以',
      '嗯',
      '嗯嗯',
      '哦',
      '噢',
      '收到',
      '了解',
      '明白',
      '明白了',
      '知道了',
      '懂了',
      '谢谢',
      '多谢',
      '感谢',
      '谢啦',
      '谢了',
      '辛苦了',
      '辛苦',
      '早',
      '早安',
      '早上好',
      '午安',
      '晚安',
      '晚上好',
      '你好',
      '您好',
      '嗨',
      '哈喽',
      '对',
      '对的',
      '是的',
      '没问题',
      '没事',
      '好嘞',
      '得嘞',
      'ok了',
      '继续',
      '拜拜',
      '再见',
    ];
    for (const t of phrases) expect(isAcknowledgement(t), JSON.stringify(t)).toBe(true);
    for (const t of ['ok thanks', 'ok thank you', 'okay thanks', 'great thanks', 'ok cool', 'good morning']) expect(isAcknowledgement(t), t).toBe(true);
  });

  it('does not skip what says something: keycaps, requests after thanks, words that are only part of a phrase', () => {
    // a phrase only counts from the start: "please thank you" is a request, not an acknowledgement
    const said = [
      '1️⃣',
      '#️⃣',
      'thank you, deploy it',
      'ok so what now',
      'you',
      'much',
      'so',
      'many',
      'yes thank',
      'thanks a',
      'please thank you',
      'so thanks',
      'and many thanks',
      'deploy👍',
      '👍deploy',
      'ok👍deploy',
    ];
    for (const t of said) expect(isAcknowledgement(t), JSON.stringify(t)).toBe(false);
  });

  it('takes exactly 40 characters of acknowledgement, and not 41', () => {
    const forty = `${Array(13).fill('ok').join(' ')}!!`;
    const fortyOne = Array(14).fill('ok').join(' ');
    expect([forty.length, fortyOne.length]).toEqual([40, 41]);
    expect(isAcknowledgement(forty)).toBe(true);
    expect(isAcknowledgement(fortyOne)).toBe(false);
  });
});

describe('usage counters, exactly', () => {
  let seq = 0;
  // v1 records, read as the log reads them (upcast to the current version)
  const rec = (type: string, data: unknown): LogRecord => upcast({ seq: ++seq, ts: 0, type, v: 1, ns: 'p', actor: 't', data, hash: '', bytes: 0 });
  const performed = (id: string, c: { evidence_key: string; score: number; flags?: string[] }[], mode = 'keyword') =>
    rec('recall.performed', { recall_id: id, retrieval_mode: mode, queries: [], candidates: c.map((x) => ({ layer: 'memory', ...x })) });
  const verdicts = (id: string, v: [string, number | null][]) =>
    rec('verdict.recorded', { recall_id: id, judge: 'd', status: 'complete', verdicts: v.map(([evidence_key, score]) => ({ evidence_key, score })) });

  it('counts considered and returned once per recall, however often a key is listed', () => {
    const u = new UsageProjection();
    u.apply(
      performed('r', [
        { evidence_key: 'a', score: 1, flags: ['returned'] },
        { evidence_key: 'a', score: 0.5, flags: ['returned'] },
        { evidence_key: 'b', score: 0.4 },
      ]),
    );
    expect(u.get('p', 'a')).toEqual({ considered: 1, judged: 0, relevant: 0, returned: 1 });
    expect(u.get('p', 'b')).toEqual({ considered: 1, judged: 0, relevant: 0, returned: 0 });
  });

  it('takes the best decisive verdict of a key judged twice in one recall; unknown never erases a decisive one', () => {
    const u = new UsageProjection();
    u.apply(performed('r', [{ evidence_key: 'a', score: 1 }]));
    u.apply(
      verdicts('r', [
        ['a', 0.2],
        ['a', null],
        ['a', 0.7],
        ['a', 0.1],
      ]),
    );
    expect(u.get('p', 'a')).toMatchObject({ judged: 1, relevant: 1 });
    const v = new UsageProjection();
    v.apply(performed('s', [{ evidence_key: 'a', score: 1 }]));
    v.apply(
      verdicts('s', [
        ['a', null],
        ['a', 0.2],
      ]),
    );
    expect(v.get('p', 'a')).toMatchObject({ judged: 1, relevant: 0 });
  });

  it('counts no negative for a recall whose candidates it never saw, and none after a skipped recall', () => {
    const u = new UsageProjection();
    u.apply(verdicts('unseen', [['a', 0.1]]));
    expect(u.get('p', 'a')).toBeUndefined();
    u.apply(performed('skip', [{ evidence_key: 'a', score: 1 }], 'skipped'));
    u.apply(verdicts('skip', [['a', 0.1]]));
    expect(u.get('p', 'a')).toMatchObject({ judged: 0 });
    // a positive counts even from a recall it never saw
    u.apply(verdicts('unseen-2', [['b', 0.9]]));
    expect(u.get('p', 'b')).toMatchObject({ judged: 1, relevant: 1 });
  });

  it('forgets the oldest pending recalls beyond 256, so a late verdict for one counts no negative', () => {
    const u = new UsageProjection();
    u.apply(performed('first', [{ evidence_key: 'a', score: 1 }]));
    for (let i = 0; i < 256; i++) u.apply(performed(`r${i}`, [{ evidence_key: 'x', score: 1 }]));
    u.apply(verdicts('first', [['a', 0.1]]));
    expect(u.get('p', 'a')).toMatchObject({ judged: 0 });
    const v = new UsageProjection();
    v.apply(performed('first', [{ evidence_key: 'a', score: 1 }]));
    for (let i = 0; i < 255; i++) v.apply(performed(`r${i}`, [{ evidence_key: 'x', score: 1 }]));
    v.apply(verdicts('first', [['a', 0.1]]));
    expect(v.get('p', 'a')).toMatchObject({ judged: 1 });
  });

  it('counts settled recalls out of the 256, also across a snapshot load', () => {
    const u = new UsageProjection();
    u.apply(performed('first', [{ evidence_key: 'a', score: 1 }]));
    for (let i = 0; i < 255; i++) u.apply(performed(`r${i}`, [{ evidence_key: 'x', score: 1 }]));
    for (let i = 0; i < 10; i++) u.apply(verdicts(`r${i}`, [['x', 0.9]])); // 246 pending now
    const w = new UsageProjection();
    w.load(structuredClone(u.snapshot()));
    for (const p of [u, w]) {
      for (let i = 0; i < 10; i++) p.apply(performed(`s${i}`, [{ evidence_key: 'y', score: 1 }])); // 256: none dropped
      p.apply(verdicts('first', [['a', 0.1]]));
      expect(p.get('p', 'a')).toMatchObject({ judged: 1 });
    }
  });

  it('keeps a decisive verdict when an unknown one for the same key follows it in the same recall', () => {
    const u = new UsageProjection();
    u.apply(performed('mixed', [{ evidence_key: 'a', score: 1 }]));
    u.apply(
      verdicts('mixed', [
        ['a', 0.9],
        ['a', null],
      ]),
    );
    expect(u.get('p', 'a')).toMatchObject({ judged: 1, relevant: 1 });
  });

  it('treats every candidate as serious when the best score is zero', () => {
    const u = new UsageProjection();
    u.apply(
      performed('z', [
        { evidence_key: 'a', score: 0 },
        { evidence_key: 'b', score: 0 },
      ]),
    );
    u.apply(
      verdicts('z', [
        ['a', 0.1],
        ['b', 0.1],
      ]),
    );
    expect(u.get('p', 'b')).toMatchObject({ judged: 1 });
  });

  it('breaks ties between equally cold keys by key, whatever order they were first seen in', () => {
    const u = new UsageProjection();
    for (let i = 0; i < 3; i++)
      u.apply(
        performed(
          `t${i}`,
          ['c', 'a', 'd', 'b'].map((k) => ({ evidence_key: k, score: 1 })),
        ),
      );
    expect(u.cold('p', 3).map((c) => c.key)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('lists cold evidence by how often it was considered, then by key', () => {
    const u = new UsageProjection();
    for (let i = 0; i < 3; i++)
      u.apply(
        performed(`c${i}`, [
          { evidence_key: 'b', score: 1 },
          { evidence_key: 'a', score: 1 },
          { evidence_key: 'c', score: 1 },
        ]),
      );
    for (let i = 0; i < 2; i++) u.apply(performed(`d${i}`, [{ evidence_key: 'c', score: 1 }]));
    expect(u.cold('p', 3).map((c) => [c.key, c.considered])).toEqual([
      ['c', 5],
      ['a', 3],
      ['b', 3],
    ]);
    expect(u.cold('p', 4).map((c) => c.key)).toEqual(['c']);
  });
});

describe('evidence keys, exactly', () => {
  it('parses only whole, canonical keys of known layers', () => {
    expect(parseEvidenceKey('ev1:p:memory:a')).toEqual({ ns: 'p', layer: 'memory', id: 'a' });
    expect(parseEvidenceKey('ev1:p:card:a#2')).toEqual({ ns: 'p', layer: 'card', id: 'a', section: '2' });
    for (const bad of ['xev1:p:memory:a', 'ev1:p:memory:a b', 'ev1:p:bogus:a', 'ev1:p:memory:', 'ev1:p:memory::%ZZ', 'ev1:p:memory::a%3ab', ' ev1:p:memory:a'])
      expect(parseEvidenceKey(bad)).toBeUndefined();
    expect(idFromKeyPart(':%E0%A4%A')).toBeUndefined();
    expect(idFromKeyPart('plain')).toBe('plain');
  });

  it('escapes with upper-case hex, and every reserved character', () => {
    expect(evidenceKey({ ns: 'p', layer: 'memory', id: 'a:b#c d%e\tf' })).toBe('ev1:p:memory::a%3Ab%23c%20d%25e%09f');
  });

  it('takes the document part before the first "#", even at the start', () => {
    expect(documentKey('ev1:p:card:a#2')).toBe('ev1:p:card:a');
    expect(documentKey('ev1:p:card:a')).toBe('ev1:p:card:a');
    expect(documentKey('#x')).toBe('');
  });

  it('normalises bodies: NFKC, lower case, whitespace collapsed and trimmed', () => {
    expect(normaliseBody('  Ｈello\n\t WORLD  ')).toBe('hello world');
    expect(fingerprint('Hello  world')).toBe(fingerprint('hello world'));
    expect(fingerprint('hello world')).not.toBe(fingerprint('hello worlds'));
  });
});

describe('auth, exactly', () => {
  const withFile = async (content: string | undefined, fn: (file: string) => void | Promise<void>) => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'kioku-auth-'));
    try {
      const file = join(dir, 'auth.json');
      if (content !== undefined) writeFileSync(file, content);
      await fn(file);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const token = 'tok-0123456789abcdef';

  it('runs anonymous without a file, and authenticates every header as the anonymous user', async () => {
    const { loadAuth, ANONYMOUS, describeAuth } = await import('../src/server/auth.js');
    expect(ANONYMOUS).toMatchObject({ name: 'anonymous', namespace: 'private', anonymous: true });
    // the anonymous local user owns everything, the org too (org:admin, issue 34)
    expect([...ANONYMOUS.scopes].sort()).toEqual(['log:read', 'memory:read', 'memory:write', 'org:admin', 'service:read']);
    await withFile(undefined, (file) => {
      const a = loadAuth(file);
      expect(a).toMatchObject({ required: false, tokens: 0, file });
      expect(describeAuth(a)).toBe('auth: off (loopback, anonymous)');
      expect(describeAuth({ ...a, required: true, tokens: 1 })).toBe(`auth: on (1 token, ${file})`);
      expect(a.authenticate(undefined)).toBe(ANONYMOUS);
      expect(a.authenticate('Bearer whatever')).toBe(ANONYMOUS);
    });
  });

  it('accepts exactly "Bearer <token>" (any case, any spacing around it), nothing else', async () => {
    const { loadAuth } = await import('../src/server/auth.js');
    await withFile(JSON.stringify({ tokens: [{ name: 'n', token, namespace: 'team', scopes: ['memory:read'] }] }), (file) => {
      const a = loadAuth(file);
      expect(a).toMatchObject({ required: true, tokens: 1 });
      for (const ok of [`Bearer ${token}`, `bearer ${token}`, `Bearer   ${token}`, `Bearer ${token}  `]) expect(a.authenticate(ok)?.name, ok).toBe('n');
      for (const bad of [`xBearer ${token}`, `Bearer ${token}x`, `Bearer ${token.slice(1)}`, `Basic ${token}`, token, undefined, ''])
        expect(a.authenticate(bad), String(bad)).toBeUndefined();
      expect(a.isToken?.(token)).toBe(true);
      expect(a.isToken?.(`${token}x`)).toBe(false);
    });
  });

  it('refuses a token with whitespace inside it and a malformed hash, saying which rule', async () => {
    const { loadAuth, tokenDigest } = await import('../src/server/auth.js');
    const entry = (e: Record<string, unknown>) => JSON.stringify({ tokens: [{ name: 'n', namespace: 'team', scopes: ['memory:read'], ...e }] });
    await withFile(entry({ token: 'abcdefghij klmnopqrst' }), (file) => {
      expect(() => loadAuth(file)).toThrow(/a token may not contain whitespace/);
    });
    await withFile(entry({ token_sha256: tokenDigest('x'.repeat(20)).toUpperCase() }), (file) => {
      expect(() => loadAuth(file)).toThrow(/token_sha256 must be 64 lowercase hex characters/);
    });
  });

  it('refuses an entry with both or neither of token and token_sha256, and names the file and the field', async () => {
    const { loadAuth, tokenDigest } = await import('../src/server/auth.js');
    for (const entry of [
      { name: 'n', token, token_sha256: tokenDigest(token), namespace: 'team', scopes: ['memory:read'] },
      { name: 'n', namespace: 'team', scopes: ['memory:read'] },
    ])
      await withFile(JSON.stringify({ tokens: [entry] }), (file) => {
        expect(() => loadAuth(file)).toThrow(expect.objectContaining({ code: 'KIOKU_AUTH_FILE_INVALID', details: { file } }));
        expect(() => loadAuth(file)).toThrow(`auth file ${file}: tokens.0: give exactly one of token or token_sha256`);
      });
    await withFile('{"tokens": [', (file) => {
      expect(() => loadAuth(file)).toThrow(expect.objectContaining({ code: 'KIOKU_AUTH_FILE_INVALID', details: { file } }));
    });
    // the same token twice, and one name twice, name the file
    for (const tokens of [
      [
        { name: 'a', token, namespace: 'team', scopes: ['memory:read'] },
        { name: 'b', token_sha256: tokenDigest(token), namespace: 'private', scopes: ['memory:write'] },
      ],
      [
        { name: 'a', token, namespace: 'team', scopes: ['memory:read'] },
        { name: 'a', token: `${token}2`, namespace: 'team', scopes: ['memory:read'] },
      ],
    ])
      await withFile(JSON.stringify({ tokens }), (file) => {
        expect(() => loadAuth(file)).toThrow(expect.objectContaining({ code: 'KIOKU_AUTH_FILE_INVALID', details: { file } }));
      });
    // the schema's limits
    for (const entry of [
      { name: 'x'.repeat(201), token, namespace: 'team', scopes: ['memory:read'] },
      { name: '', token, namespace: 'team', scopes: ['memory:read'] },
      { name: 'n', token: 'a'.repeat(15), namespace: 'team', scopes: ['memory:read'] },
      { name: 'n', token: 'abc def ghi jkl mno', namespace: 'team', scopes: ['memory:read'] },
      { name: 'n', token_sha256: tokenDigest(token).toUpperCase(), namespace: 'team', scopes: ['memory:read'] },
      { name: 'n', token_sha256: tokenDigest(token).slice(1), namespace: 'team', scopes: ['memory:read'] },
      { name: 'n', token_sha256: `${tokenDigest(token)}0`, namespace: 'team', scopes: ['memory:read'] },
      { name: 'n', token, namespace: 'team', scopes: [] },
      { name: 'n', token, namespace: 'team', scopes: ['memory:read'], extra: 1 },
    ])
      await withFile(JSON.stringify({ tokens: [entry] }), (file) => {
        expect(() => loadAuth(file), JSON.stringify(entry).slice(0, 80)).toThrow(expect.objectContaining({ code: 'KIOKU_AUTH_FILE_INVALID' }));
      });
    await withFile(JSON.stringify({ tokens: [{ name: 'x'.repeat(200), token, namespace: 'team', scopes: ['memory:read', 'memory:write'] }] }), (file) => {
      expect(loadAuth(file).authenticate(`Bearer ${token}`)?.scopes).toEqual(new Set(['memory:read', 'memory:write']));
    });
    await withFile(JSON.stringify({ tokens: [], extra: true }), (file) => {
      expect(() => loadAuth(file)).toThrow(expect.objectContaining({ code: 'KIOKU_AUTH_FILE_INVALID' }));
    });
    // a hashed token authenticates the token it hashes
    await withFile(JSON.stringify({ tokens: [{ name: 'h', token_sha256: tokenDigest(token), namespace: 'team', scopes: ['memory:write'] }] }), (file) => {
      expect(loadAuth(file).authenticate(`Bearer ${token}`)).toMatchObject({ name: 'h', namespace: 'team', anonymous: false });
    });
  });
});
