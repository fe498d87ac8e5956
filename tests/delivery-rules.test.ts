// Every delivery rule of architecture.md §recall step 7 has a test that fails when the rule is removed.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_DELIVERY_RULES,
  deliver,
  excerpt,
  isPartialOf,
  repairTitle,
  utteranceTerms,
  type DeliveryCandidate,
  type DeliveryState,
} from '../src/recall/index.js';

const empty: DeliveryState = { delivered: new Map(), assistant_texts: [] };
let n = 0;
function cand(over: Partial<DeliveryCandidate> = {}): DeliveryCandidate {
  n += 1;
  return {
    key: `ev1:private:memory:k${n}`,
    kind: 'knowledge',
    layer: 'memory',
    verdict: 0.9,
    title: `Item ${n}`,
    text: `Distinct body number ${n} about something useful.`,
    occurred_at: '2026-11-01T00:00:00Z',
    rank: n,
    ...over,
  };
}
const keys = (r: ReturnType<typeof deliver>): string[] => r.items.map((i) => i.key);

describe('delivery rules', () => {
  it('floor: a verdict below 0.5 is not delivered', () => {
    const low = cand({ verdict: 0.49 });
    const r = deliver([low], empty);
    expect(keys(r)).toEqual([]);
    expect(r.held.get(low.key)).toBe('below_floor');
    expect(keys(deliver([cand({ verdict: 0.5 })], empty))).toHaveLength(1);
  });

  it('an unknown verdict is never delivered, and never counted as negative', () => {
    const unknown = cand({ verdict: null });
    const r = deliver([unknown], empty);
    expect(r.held.get(unknown.key)).toBe('unjudged');
  });

  it('at most three items', () => {
    const cs = [cand(), cand(), cand(), cand()];
    const r = deliver(cs, empty);
    expect(r.items).toHaveLength(3);
    expect(r.held.get(cs[3]!.key)).toBe('no_slot');
  });

  it('knowledge first: a higher-scored history item ranked below the knowledge does not displace it', () => {
    const hist = cand({ kind: 'history', layer: 'trace', verdict: 0.99, rank: 10 });
    const know = [cand({ verdict: 0.6 }), cand({ verdict: 0.6 }), cand({ verdict: 0.6 })];
    const r = deliver([hist, ...know], empty);
    expect(keys(r)).toEqual(know.map((k) => k.key));
    expect(r.held.get(hist.key)).toBe('no_slot');
  });

  it('history needs a verdict of at least 0.75', () => {
    const h = cand({ kind: 'history', layer: 'note', verdict: 0.7 });
    expect(deliver([h], empty).held.get(h.key)).toBe('history_floor');
    expect(keys(deliver([cand({ kind: 'history', layer: 'note', verdict: 0.75 })], empty))).toHaveLength(1);
  });

  it('history takes at most one slot left over by knowledge', () => {
    const hs = [cand({ kind: 'history', layer: 'trace', verdict: 0.9 }), cand({ kind: 'history', layer: 'trace', verdict: 0.8 })];
    const r = deliver([cand(), ...hs], empty);
    expect(keys(r)).toHaveLength(2);
    expect(r.held.get(hs[1]!.key)).toBe('no_slot');
  });

  it('a history item clearly above the best knowledge item (verdict and rank) keeps a slot from knowledge, delivered after it', () => {
    // issue 30: the turn that recorded the team's decision (0.92, ranked first) got no_slot behind three knowledge items
    const decision = cand({ kind: 'history', layer: 'trace', verdict: 0.92, rank: 0 });
    const ks = [0.9, 0.88, 0.86].map((verdict, i) => cand({ verdict, rank: i + 1 }));
    const r = deliver([...ks, decision], empty);
    expect(DEFAULT_DELIVERY_RULES.history_may_lead).toBe(true);
    expect(keys(r)).toEqual([ks[0]!.key, ks[1]!.key, decision.key]);
    expect(r.held.get(ks[2]!.key)).toBe('no_slot');
    // below the best knowledge verdict, or ranked after it: knowledge first, as before
    const lower = { ...decision, verdict: 0.89 };
    expect(deliver([...ks, lower], empty).held.get(lower.key)).toBe('no_slot');
    const later = { ...decision, rank: 5 };
    expect(deliver([...ks, later], empty).held.get(later.key)).toBe('no_slot');
    // a lead the rules ask for, and the switch
    expect(deliver([...ks, decision], empty, { ...DEFAULT_DELIVERY_RULES, history_lead: 0.05 }).held.get(decision.key)).toBe('no_slot');
    expect(deliver([...ks, decision], empty, { ...DEFAULT_DELIVERY_RULES, history_may_lead: false }).held.get(decision.key)).toBe('no_slot');
    // still one history slot at most
    const second = cand({ kind: 'history', layer: 'trace', verdict: 0.93, rank: 0 });
    const both = deliver([...ks, decision, second], empty);
    expect(keys(both)).toEqual([ks[0]!.key, ks[1]!.key, second.key]);
    expect(both.held.get(decision.key)).toBe('no_slot');
  });

  it('behind_best: an item far behind the best of its kind is held, history measured against history', () => {
    const best = cand({ verdict: 0.95, rank: 0 });
    const near = cand({ verdict: 0.7, rank: 1 });
    const far = cand({ verdict: 0.6, rank: 2 });
    const rules = { ...DEFAULT_DELIVERY_RULES, behind_best: 0.3 };
    expect(DEFAULT_DELIVERY_RULES.behind_best).toBe(0.2); // issue 30 (R): 0.3 -> 0.2 with partial_of complete_match
    const r = deliver([best, near, far], empty, rules);
    expect(keys(r)).toEqual([best.key, near.key]);
    expect(r.held.get(far.key)).toBe('behind_best');
    // off: all three
    expect(keys(deliver([best, near, far], empty, { ...rules, behind_best: undefined }))).toHaveLength(3);
    // a history item is not measured against knowledge (knowledge first stays), nor knowledge against history
    const hist = cand({ kind: 'history', layer: 'trace', verdict: 0.99, rank: 10 });
    const low = [cand({ verdict: 0.6 }), cand({ verdict: 0.6 })];
    expect(keys(deliver([hist, ...low], empty, rules))).toEqual([...low.map((k) => k.key), hist.key]);
    // an item held by another rule sets no bar
    const quotedBest = cand({ verdict: 0.99, rank: 0, meta: true });
    expect(keys(deliver([quotedBest, far], empty, rules))).toEqual([far.key]);
  });

  it('unknown_name: a question naming something no judged candidate holds gets nothing', () => {
    const generic = cand({ verdict: 0.9, text: 'Set up mutation-free testing for your suite.' });
    const other = cand({ verdict: 0.8, text: 'Running tests in watch mode.' });
    const state = { ...empty, query_names: ['stryker', 'vitest'] };
    const r = deliver([generic, other], state);
    expect(keys(r)).toEqual([]);
    expect(r.held.get(generic.key)).toBe('unknown_name');
    // one candidate holding each name is enough, even an unjudged one is not
    const named = cand({ verdict: 0.4, text: 'Stryker runs Vitest suites.' });
    expect(keys(deliver([generic, other, named], state))).toEqual([generic.key, other.key]);
    expect(keys(deliver([generic, other, { ...named, verdict: null }], state))).toEqual([]);
    // a name matched in the title, and the rule off
    expect(keys(deliver([generic, cand({ title: 'Stryker and Vitest', verdict: 0.2 })], state))).toEqual([generic.key]);
    expect(keys(deliver([generic, other], state, { ...DEFAULT_DELIVERY_RULES, hold_unknown_names: false }))).toHaveLength(2);
    // a held candidate keeps its own reason
    const low = cand({ verdict: 0.3 });
    expect(deliver([low], state).held.get(low.key)).toBe('below_floor');
  });

  it('nothing delivered in this session since context_since is delivered again', () => {
    const c = cand({ fingerprint: 'a'.repeat(64) });
    const state: DeliveryState = { ...empty, session_id: 's', delivered: new Map([[c.key, ['a'.repeat(64)]]]) };
    expect(deliver([c], state).held.get(c.key)).toBe('already_delivered');
  });

  it('an edited source (fingerprint changed) may be delivered again', () => {
    const c = cand({ fingerprint: 'b'.repeat(64) });
    const state: DeliveryState = { ...empty, session_id: 's', delivered: new Map([[c.key, ['a'.repeat(64)]]]) };
    expect(keys(deliver([c], state))).toEqual([c.key]);
  });

  it('an unknown version on either side blocks re-delivery (cards carry no fingerprint)', () => {
    const card = cand({ layer: 'card', fingerprint: undefined });
    expect(deliver([card], { ...empty, delivered: new Map([[card.key, ['a'.repeat(64)]]]) }).held.get(card.key)).toBe('already_delivered');
    const mem = cand({ fingerprint: 'b'.repeat(64) });
    expect(deliver([mem], { ...empty, delivered: new Map([[mem.key, [null]]]) }).held.get(mem.key)).toBe('already_delivered');
  });

  it("none of this session's own traces in the visible range", () => {
    const own = cand({ kind: 'history', layer: 'trace', verdict: 0.9, session_id: 's1', occurred_at: '2026-11-02T00:00:00Z' });
    const state: DeliveryState = { ...empty, session_id: 's1', context_since: '2026-11-01T00:00:00Z' };
    expect(deliver([own], state).held.get(own.key)).toBe('own_session');
    // before the last compaction it is out of view, so it may come back
    const old = { ...own, key: 'ev1:private:trace:old', occurred_at: '2026-10-01T00:00:00Z' };
    expect(keys(deliver([old], state))).toEqual([old.key]);
  });

  it('no exact duplicates', () => {
    const a = cand({ text: 'Run scripts/rollback.sh with the previous tag.' });
    const b = cand({ text: 'Run  scripts/rollback.sh with the previous tag.', verdict: 0.8 });
    const r = deliver([a, b], empty);
    expect(keys(r)).toEqual([a.key]);
    expect(r.held.get(b.key)).toBe('duplicate');
  });

  it('nothing already quoted in a recent assistant reply', () => {
    const c = cand({ text: 'Run scripts/rollback.sh with the previous tag.' });
    const state: DeliveryState = { ...empty, assistant_texts: ['As the runbook says: run scripts/rollback.sh with the previous tag. Then check.'] };
    expect(deliver([c], state).held.get(c.key)).toBe('quoted');
  });

  it('never a display-truncated snippet', () => {
    const c = cand({ text: 'The migration plan for the billing service starts with…' });
    expect(deliver([c], empty).held.get(c.key)).toBe('truncated');
  });

  it('never a card metadata section', () => {
    const c = cand({ layer: 'card', meta: true });
    expect(deliver([c], empty).held.get(c.key)).toBe('metadata_section');
  });

  it('replaces titles with no letters or a short prefix plus a hash by the first sentence', () => {
    expect(repairTitle('1789234567890123', 'Bookmark about HNSW tuning. More text.')).toBe('Bookmark about HNSW tuning.');
    expect(repairTitle('Xkb Case 6769ab12', 'Case notes on retries. Details follow.')).toBe('Case notes on retries.');
    expect(repairTitle('Deploying safely', 'Body.')).toBe('Deploying safely');
    const r = deliver([cand({ title: '12345', text: 'Rotate keys quarterly. Use the vault.' })], empty);
    expect(r.items[0]?.title).toBe('Rotate keys quarterly.');
  });

  it('cuts long bodies at paragraph boundaries and labels them as excerpts', () => {
    const body = ['First paragraph.', 'x'.repeat(1_500), `Third paragraph that does not fit ${'y'.repeat(200)}`].join('\n\n');
    const cut = excerpt(body, 1_600);
    expect(cut).toEqual({ text: `First paragraph.\n\n${'x'.repeat(1_500)}`, excerpt: true });
    const r = deliver([cand({ text: body })], { ...empty }, { ...DEFAULT_DELIVERY_RULES, excerpt_chars: 1_600 });
    expect(r.items[0]?.excerpt).toBe(true);
  });

  it('chooses from every judged candidate, in a deterministic order', () => {
    const cs = Array.from({ length: 12 }, (_, i) => cand({ verdict: i === 11 ? 0.95 : 0.1 }));
    const r = deliver(cs, empty);
    expect(keys(r)).toEqual([cs[11]!.key]);
    expect(deliver([...cs].reverse(), empty)).toEqual(r);
  });

  describe('complete matches before partial ones', () => {
    const asked = (q: string): DeliveryState => ({ ...empty, query_terms: utteranceTerms(q) });
    // matches every term of 'Which database does staging use?' (database, stag, use): since issue 30 (R) a partial
    // match is held only behind a complete one (partial_of complete_match)
    const staging = (): DeliveryCandidate => cand({ verdict: 0.95, text: 'Staging uses the database pg-staging-2 in the eu-west region.' });
    const cache = (): DeliveryCandidate => cand({ verdict: 0.86, text: 'The product cache TTL was raised to 30 minutes to cut database load.' });

    it('holds an item matching only part of what a delivered item from another document matches', () => {
      const [best, partial] = [staging(), cache()];
      const r = deliver([best, partial], asked('Which database does staging use?'));
      expect(keys(r)).toEqual([best.key]);
      expect(r.held.get(partial.key)).toBe('partial_match');
    });

    it('keeps items matching different terms, equal terms, or no term at all (a semantic match)', () => {
      const state = asked('Is the deploy freeze on Fridays still in force?');
      const old = cand({ verdict: 0.9, text: 'Deploy freeze: no production deploys on Fridays. Still in force.' });
      // both sides of a contradiction: the current one matches the same terms through its expansion words
      const current = cand({
        verdict: 0.8,
        text: 'Since October, production deploys on Fridays are allowed before noon.',
        match_text: 'Since October, production deploys on Fridays are allowed before noon.\ndeploy friday freeze still force',
      });
      const semantic = cand({ verdict: 0.7, text: 'Releases wait for Monday.' });
      expect(keys(deliver([old, current, semantic], state))).toEqual([old.key, current.key, semantic.key]);
      // "freeze" alone is part of what `old` matches: held, and the semantic match takes the slot
      const other = cand({ verdict: 0.7, text: 'A freeze of the schema lasts a week.' });
      const r = deliver([old, other, semantic], state);
      expect(keys(r)).toEqual([old.key, semantic.key]);
      expect(r.held.get(other.key)).toBe('partial_match');
    });

    it('never holds another section of the same document', () => {
      const summary = cand({ key: 'ev1:private:card:rollback#1', verdict: 0.9, text: 'Roll back a bad release with scripts/rollback.sh.' });
      const steps = cand({ key: 'ev1:private:card:rollback#3', verdict: 0.8, text: 'Run the release script again.' });
      expect(keys(deliver([summary, steps], asked('How do I roll back a release?')))).toEqual([summary.key, steps.key]);
    });

    it('applies to history as well, and is off without query terms or when the rule is switched off', () => {
      const [best, note] = [staging(), cand({ kind: 'history', layer: 'note', verdict: 0.8, text: 'Spent the day on database load.' })];
      const state = asked('Which database does staging use?');
      expect(deliver([best, note], state).held.get(note.key)).toBe('partial_match');
      expect(keys(deliver([best, note], empty))).toEqual([best.key, note.key]);
      expect(keys(deliver([best, note], state, { ...DEFAULT_DELIVERY_RULES, hold_partial_matches: false }))).toEqual([best.key, note.key]);
    });

    it('partial_of higher_ranked_match: an item retrieval ranked above the fuller match is not held', () => {
      // issue 30: the HTTP/2 page (judged 0.969, ranked first) was held while a page matching more words was delivered
      const state = asked('Which database does staging use?');
      const fuller = cand({ verdict: 0.97, rank: 2, text: 'The staging database is pg-staging-2 in the eu-west region.' });
      const first = cand({ verdict: 0.96, rank: 0, text: 'Staging: pg-staging-2, restored nightly.' });
      const higher = { ...DEFAULT_DELIVERY_RULES, partial_of: 'higher_ranked_match' as const };
      expect(keys(deliver([fuller, first], state, higher))).toEqual([fuller.key, first.key]);
      const below = { ...first, key: 'ev1:private:memory:below', rank: 3 };
      expect(deliver([fuller, below], state, higher).held.get(below.key)).toBe('partial_match');
      expect(deliver([fuller, first], state, { ...DEFAULT_DELIVERY_RULES, partial_of: 'any_better_match' }).held.get(first.key)).toBe('partial_match');
    });

    it('partial_of complete_match (default): held only behind an item matching every term of the query', () => {
      // issue 30: the option's own reference section ("retry.delay", ranked second) was held behind a
      // higher-ranked page matching more of the question's words but not all of them
      const state = asked('Which staging database has backups?');
      const most = cand({ verdict: 0.95, rank: 0, text: 'The staging database is pg-staging-2.' });
      const part = cand({ verdict: 0.9, rank: 1, text: 'Every database has its own role.' });
      expect(DEFAULT_DELIVERY_RULES.partial_of).toBe('complete_match');
      expect(keys(deliver([most, part], state))).toEqual([most.key, part.key]);
      expect(deliver([most, part], state, { ...DEFAULT_DELIVERY_RULES, partial_of: 'higher_ranked_match' }).held.get(part.key)).toBe('partial_match');
      const all = cand({ verdict: 0.96, text: 'Backups of the staging database run nightly.' });
      expect(deliver([all, part], state).held.get(part.key)).toBe('partial_match');
    });

    it('isPartialOf: a strict, non-empty part', () => {
      const s = (...t: string[]): Set<string> => new Set(t);
      expect(isPartialOf(s('a'), s('a', 'b'))).toBe(true);
      expect(isPartialOf(s('a', 'b'), s('a', 'b'))).toBe(false);
      expect(isPartialOf(s('c'), s('a', 'b'))).toBe(false);
      expect(isPartialOf(s(), s('a'))).toBe(false);
    });
  });
});

describe('title repair and excerpts, case by case', () => {
  const body = 'The real first sentence. Then more.';
  it.each([
    // [title, repaired?] — each row separates the two "prefix + hash" patterns from their near misses
    ['Note abcd more words', false], // a hex word inside a title is not a hash title
    ['Note abcd ', true], // a short hash after a word, trailing space and all
    ['v2 — build deadbeef', false], // the short prefix must start the title
    ['build abcd1234...', true], // an elided hash
    ['build abcd1234 ', true], // surrounding space does not hide it
    ['x1-abcdef12', true], // a short token glued to a hash
    [' x1-abcdef12 ', true],
    ['x1- abcdef12', true],
    ['x1-abcdef12 is the fix', false],
    ['a very long prefix here abcdef12', false],
    ['x1-b', false],
    ['v1-moon-ring', false],
  ])('%j is repaired: %s', (title, repaired) => {
    expect(repairTitle(title, body)).toBe(repaired ? 'The real first sentence.' : title);
  });

  it('takes the first sentence of the trimmed body, cut at 120 characters', () => {
    expect(repairTitle('1234', '\nFirst line here\nsecond line')).toBe('First line here');
    expect(repairTitle('1234', `${'w'.repeat(130)}. Next.`)).toBe(`${'w'.repeat(119)}…`);
  });

  it('keeps a paragraph that fits exactly', () => {
    expect(excerpt('aaaa\n\nbbbb\n\ncccc', 10)).toEqual({ text: 'aaaa\n\nbbbb', excerpt: true });
  });

  it.each([
    // one long paragraph: whole sentences, where a run of end marks is one boundary
    ['Go. Wait!! More words follow here.', 9, 'Go.'],
    ['Go. Wait!! More words follow here.', 10, 'Go. Wait!!'],
    // leading marks belong to the text
    ['?? ok. More words here', 6, '?? ok.'],
    ['??ok. more words', 5, '??ok.'],
    ['??xy. more words', 3, '??'],
    // an empty first paragraph: cut the text itself
    [`\n\n${'x'.repeat(100)}`, 50, `\n\n${'x'.repeat(48)}`],
  ])('%j cut at %i is %j', (text, max, want) => {
    expect(excerpt(text, max)).toEqual({ text: want, excerpt: true });
  });
});

describe('delivery order and bookkeeping, exactly', () => {
  it('orders equal verdicts and ranks by key', () => {
    const three = ['c', 'a', 'b'].map((k) => cand({ key: `ev1:private:memory:${k}`, rank: 1, verdict: 0.8 }));
    expect(keys(deliver(three, empty))).toEqual(['ev1:private:memory:a', 'ev1:private:memory:b', 'ev1:private:memory:c']);
  });

  it('never lists a delivered item among the held ones', () => {
    const k = cand();
    const h = cand({ kind: 'history', layer: 'trace', verdict: 0.95 });
    const r = deliver([k, h], empty);
    expect(keys(r)).toEqual([k.key, h.key]);
    expect([...r.held.keys()]).toEqual([]);
  });

  it('holds a quoted body from 20 characters on, not shorter', () => {
    const twenty = 'abcdefghij klmnopqrs'; // 20 characters
    expect(twenty).toHaveLength(20);
    const state = { ...empty, assistant_texts: [`As I said: ${twenty} indeed`] };
    const quoted = cand({ text: twenty });
    expect(deliver([quoted], state).held.get(quoted.key)).toBe('quoted');
    const short = cand({ text: twenty.slice(1) });
    expect(keys(deliver([short], { ...empty, assistant_texts: [`As I said: ${twenty.slice(1)} indeed`] }))).toEqual([short.key]);
  });
});
