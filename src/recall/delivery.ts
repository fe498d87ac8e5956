// Delivery: pure local rules, no model (architecture.md §recall step 7). From every judged
// candidate — not only the response's `limit` — pick at most three items for the
// answering agent, knowledge first, never repeating what it can still see.
import { KiokuError } from '../errors.js';
import { documentKey, normaliseBody } from '../knowledge/evidence.js';
import { excerpt } from '../text/excerpt.js';
import { headOf } from '../text/well-formed.js';
import { matchedTerms } from './terms.js';

export const HOLD_REASONS = [
  'unjudged',
  'below_floor',
  'behind_best',
  'history_floor',
  'already_delivered',
  'own_session',
  'quoted',
  'duplicate',
  'partial_match',
  'truncated',
  'metadata_section',
  'no_slot',
  'unknown_name',
] as const;
export type HoldReason = (typeof HOLD_REASONS)[number];

export interface DeliveryCandidate {
  key: string;
  /** knowledge (cards, wiki, memories, assets) or history (notes, traces, episodes) */
  kind: 'knowledge' | 'history';
  layer: string;
  /** the judge's score; null = unknown (never treated as negative, never delivered) */
  verdict: number | null;
  /** normalised-body fingerprint; undefined for cards (their text is not a version) */
  fingerprint?: string | undefined;
  title: string;
  text: string;
  /** what the query's terms are matched against (`matchText`); default the title and text */
  match_text?: string | undefined;
  meta?: boolean | undefined;
  session_id?: string | undefined;
  occurred_at: string;
  /** fused rank, 0 = best */
  rank: number;
}

export interface DeliveryState {
  session_id?: string | undefined;
  /** the last compaction (ISO); absent = the whole session is still visible */
  context_since?: string | undefined;
  /** keys delivered in this session since context_since → fingerprints then (null = unknown version) */
  delivered: ReadonlyMap<string, readonly (string | null)[]>;
  /** recent assistant replies in the visible dialogue */
  assistant_texts: readonly string[];
  /** the utterance's keyword terms (`utteranceTerms`), for the partial-match rule; absent = rule off */
  query_terms?: ReadonlySet<string> | undefined;
  /** the utterance's terms written as names (`turnQueryNames`: "Stryker", "MySQL"), for the unknown-name rule */
  query_names?: readonly string[] | undefined;
}

export interface DeliveryRules {
  floor: number;
  history_floor: number;
  max_items: number;
  max_history: number;
  excerpt_chars: number;
  /**
   * Complete matches before partial ones: an item whose matched query terms are a strict part
   * of those of an item already delivered from another document is held (`partial_match`).
   * It shares a word with the question, while a better match answers all of it.
   */
  hold_partial_matches: boolean;
  /**
   * What a partial match is held for: `any_better_match` — an item delivered from another
   * document matches more of the query's terms (all of this one's and more); `complete_match` —
   * only when that item matches every term of the query (the rule's own reason: a better match
   * answers all of it); `higher_ranked_match` — only when that item also ranks above it.
   */
  partial_of?: PartialOf | undefined;
  /**
   * A history item clearly above the best knowledge item — a verdict at least `history_lead`
   * higher and a better fused rank — keeps one slot from knowledge (still at most max_history,
   * delivered after the knowledge). Off: knowledge fills the slots first.
   */
  history_may_lead?: boolean | undefined;
  /** default 0 */
  history_lead?: number | undefined;
  /**
   * An item whose verdict is more than this below the best verdict among the items of its kind
   * (knowledge or history) that may be delivered is held (`behind_best`): a third item far behind
   * the first adds reading, rarely the answer. Absent = off.
   */
  behind_best?: number | undefined;
  /**
   * A question naming something no judged candidate holds ("Stryker", "MySQL": names the
   * library never mentions) is not answered by any of them, however many generic words they
   * share with it: every candidate is held (`unknown_name`). Absent or false = off.
   */
  hold_unknown_names?: boolean | undefined;
  /**
   * A delivered memory that is a turn of a conversation (a session's, or a plain memory's
   * neighbours: sessionNeighbours) is handed over with up to this many turns before and after it,
   * as one item (`window` names the turns its text holds): the answer to a question is often the
   * reply, or the line that set it up, which the judge scores lower than the line repeating the
   * question's words. 2 = the window lane's radius (the text a turn's window vector is embedded
   * from). Absent or 0 = off.
   */
  turn_window?: number | undefined;
  /**
   * A delivered documentation section (wiki) shorter than one excerpt is handed over with up to
   * this many sections before and after it on its page, nearer first, while the text fits
   * `excerpt_chars` (src/recall/section-window.ts; `window` names the sections): a page written
   * as short sections keeps the answer beside the section that matched the question's words.
   * At most 5 (a larger radius is read as 5, as turn_window's). Absent or 0 = off.
   */
  section_window?: number | undefined;
  /**
   * When the judge is unsure of its best — the best verdict among the knowledge that may be
   * delivered is below `below` — retrieval's own first choices get a lower floor: a knowledge
   * candidate among the first `ranks` of the fused ranking with a verdict of at least `floor` is
   * not held below_floor nor behind_best. A judge without a vector (CJK text the bundled embedder
   * cannot read) scores the right section 0.3 while retrieval ranks it first or second; a best
   * barely over the floor is no reason to trust its order over retrieval's. Nothing changes when
   * no knowledge passes the floor (the unanswerable stay quiet). Absent = off.
   */
  unsure_best?: { below: number; floor: number; ranks: number } | undefined;
}

export const PARTIAL_OF = ['any_better_match', 'complete_match', 'higher_ranked_match'] as const;
export type PartialOf = (typeof PARTIAL_OF)[number];

export const DEFAULT_DELIVERY_RULES: DeliveryRules = {
  floor: 0.5,
  history_floor: 0.75,
  max_items: 3,
  max_history: 1,
  excerpt_chars: 2_000,
  hold_partial_matches: true,
  // complete_match (issue 30, was higher_ranked_match), with behind_best 0.2 (was 0.3) and the heading cue: eval:docs
  // dev in process Vitest 0.761 -> 0.826 answered at 2.02 -> 1.87 items, Vue 0.909 -> 0.909 at 1.16 -> 1.11 (evals/README.md)
  partial_of: 'complete_match',
  history_may_lead: true,
  history_lead: 0,
  // chosen with replay on the documentation dev questions and the offline cases (evals/replay/delivery-rules.ts)
  behind_best: 0.2,
  // replay (evals/replay/delivery-rules.ts) and eval:docs: quiet on unanswerable doc questions, no answered one lost
  hold_unknown_names: true,
  // eval:locomo --delivery (issue 35): a gold turn in the delivered text 0.550 -> 0.650 (radius 1), -> 0.75 (2) at the same items
  turn_window: 2,
  section_window: 1,
  // replay (evals/replay/delivery-rules.ts) and eval:docs dev: Vue answer 0.932 -> 0.977 at 1.11 -> 1.18 items
  // (vz-010, vz-062: the answer ranked 2nd, judged 0.32 beside a best of 0.50-0.54), Vitest unchanged
  // at 1.83 -> 1.85, no offline case changed (evals/README.md, issue 30, D)
  unsure_best: { below: 0.6, floor: 0.3, ranks: 2 },
};

/** Today's delivery rules with some changed (replay's "what if"); a history cap above the item cap is refused. */
export function rulesWith(changes: Partial<DeliveryRules> = {}): DeliveryRules {
  const d = DEFAULT_DELIVERY_RULES;
  const maxItems = changes.max_items ?? d.max_items;
  const rules = { ...d, ...changes, max_items: maxItems, max_history: changes.max_history ?? Math.min(d.max_history, maxItems) };
  if (rules.max_history > maxItems)
    // Stryker disable next-line StringLiteral: the message's wording; the code and details are the API and are tested
    throw new KiokuError('KIOKU_INPUT_INVALID', `max_history (${rules.max_history}) cannot exceed max_items (${maxItems})`, {
      details: { field: 'max_history' },
    });
  return rules;
}

export interface DeliveredItem {
  key: string;
  layer: string;
  kind: 'knowledge' | 'history';
  title: string;
  text: string;
  /** the text was cut at a paragraph boundary */
  excerpt: boolean;
  verdict: number;
  fingerprint?: string;
  /** turn_window or section_window: the evidence keys of the turns or sections the text holds, in order (this item's among them) */
  window?: string[];
  /** the version of each of `window`'s turns or sections when handed over (null: it has none, a card) */
  window_fingerprints?: (string | null)[];
}

export interface DeliveryResult {
  items: DeliveredItem[];
  held: Map<string, HoldReason>;
}

/** Which candidates reach the agent, and why each other one did not. */
export function deliver(candidates: readonly DeliveryCandidate[], state: DeliveryState, rules: DeliveryRules = DEFAULT_DELIVERY_RULES): DeliveryResult {
  const held = new Map<string, HoldReason>();
  const eligible: DeliveryCandidate[] = [];
  const since = state.context_since ? Date.parse(state.context_since) : -Infinity;
  const assistant = state.assistant_texts.map(normaliseBody).filter(Boolean);
  const unknown = rules.hold_unknown_names ? namesNoneHolds(candidates, state.query_names ?? []) : [];
  for (const c of candidates) {
    const reason = holdReason(c, state, rules, since, assistant) ?? (unknown.length ? 'unknown_name' : undefined);
    if (reason) held.set(c.key, reason);
    else eligible.push(c);
  }
  const lifted = new Set<string>();
  const unsure = rules.unsure_best;
  const bestKnowledge = Math.max(...eligible.filter((c) => c.kind === 'knowledge').map((c) => c.verdict as number));
  if (unsure && bestKnowledge > -Infinity && bestKnowledge < unsure.below)
    for (const c of candidates) {
      if (held.get(c.key) !== 'below_floor' || c.kind !== 'knowledge' || c.rank >= unsure.ranks || (c.verdict as number) < unsure.floor) continue;
      const reason = holdReason(c, state, { ...rules, floor: unsure.floor }, since, assistant);
      if (reason) held.set(c.key, reason);
      else {
        held.delete(c.key);
        eligible.push(c);
        lifted.add(c.key);
      }
    }
  if (rules.behind_best !== undefined) {
    // behind the best of its own kind: knowledge-first and the history slot stay as they are
    const top = (kind: DeliveryCandidate['kind']): number => Math.max(...eligible.filter((c) => c.kind === kind).map((c) => c.verdict as number));
    const tops = { knowledge: top('knowledge'), history: top('history') };
    for (const c of eligible.filter((c) => !lifted.has(c.key) && (c.verdict as number) < tops[c.kind] - (rules.behind_best as number))) {
      held.set(c.key, 'behind_best');
      eligible.splice(eligible.indexOf(c), 1);
    }
  }
  // knowledge first, then by verdict, then by fused rank (deterministic)
  const order = (a: DeliveryCandidate, b: DeliveryCandidate): number =>
    (b.verdict as number) - (a.verdict as number) || a.rank - b.rank || (a.key < b.key ? -1 : 1);
  const knowledge = eligible.filter((c) => c.kind === 'knowledge').sort(order);
  const history = eligible.filter((c) => c.kind === 'history').sort(order);
  const items: DeliveredItem[] = [];
  const texts = new Set<string>();
  const terms = rules.hold_partial_matches && state.query_terms?.size ? state.query_terms : undefined;
  const matchedBy = new Map<string, { terms: ReadonlySet<string>; rank: number }>();
  const heldAsPartial = (c: DeliveryCandidate, mine: ReadonlySet<string>): boolean => {
    const doc = documentKey(c.key);
    for (const [key, theirs] of matchedBy) {
      if (documentKey(key) === doc || !isPartialOf(mine, theirs.terms)) continue;
      if (rules.partial_of === 'complete_match' && theirs.terms.size < (terms as ReadonlySet<string>).size) continue;
      if (rules.partial_of === 'higher_ranked_match' && theirs.rank > c.rank) continue;
      return true;
    }
    return false;
  };
  const take = (c: DeliveryCandidate): void => {
    const body = normaliseBody(c.text);
    if (texts.has(body)) return void held.set(c.key, 'duplicate');
    if (terms) {
      const mine = matchedTerms(terms, c.match_text ?? `${c.title}\n${c.text}`);
      if (heldAsPartial(c, mine)) return void held.set(c.key, 'partial_match');
      matchedBy.set(c.key, { terms: mine, rank: c.rank });
    }
    texts.add(body);
    items.push(present(c, rules));
  };
  let historyTaken = 0;
  const takeHistory = (c: DeliveryCandidate): void => {
    const before = items.length;
    take(c);
    if (items.length > before) historyTaken += 1;
  };
  // a history item clearly above the best knowledge item (verdict and rank) keeps a slot from knowledge;
  // knowledge is still handed over first (a bounded hook text keeps it), the history item after it
  const best = knowledge[0];
  const leads = rules.history_may_lead
    ? history.filter((c) => best && (c.verdict as number) >= (best.verdict as number) + (rules.history_lead ?? 0) && c.rank < best.rank).length
    : 0;
  const reserved = Math.min(leads, rules.max_history);
  for (const c of knowledge) {
    if (items.length >= rules.max_items - reserved) held.set(c.key, 'no_slot');
    else take(c);
  }
  for (const c of history) {
    // history takes at most max_history of the slots knowledge left over (or kept from it)
    if (items.length >= rules.max_items || historyTaken >= rules.max_history) held.set(c.key, 'no_slot');
    else takeHistory(c);
  }
  return { items, held };
}

function holdReason(c: DeliveryCandidate, state: DeliveryState, rules: DeliveryRules, since: number, assistant: readonly string[]): HoldReason | undefined {
  if (c.verdict === null) return 'unjudged';
  if (c.verdict < rules.floor) return 'below_floor';
  if (c.kind === 'history' && c.verdict < rules.history_floor) return 'history_floor';
  if (c.meta) return 'metadata_section';
  if (isTruncatedSnippet(c.text)) return 'truncated';
  if (state.session_id && c.layer === 'trace' && c.session_id === state.session_id && Date.parse(c.occurred_at) >= since) return 'own_session';
  const before = state.delivered.get(c.key);
  if (before && before.length > 0) {
    // an edited source may be suggested again; an unknown version on either side blocks
    const changed = c.fingerprint !== undefined && before.every((fp) => fp !== null && fp !== c.fingerprint);
    if (!changed) return 'already_delivered';
  }
  if (isQuoted(c.text, assistant)) return 'quoted';
  return undefined;
}

/** The query's names that no judged candidate holds (in its title, text or terms). */
export function namesNoneHolds(candidates: readonly DeliveryCandidate[], names: readonly string[]): string[] {
  if (names.length === 0) return [];
  const wanted = new Set(names);
  const held = new Set<string>();
  for (const c of candidates) {
    if (c.verdict === null) continue;
    for (const t of matchedTerms(wanted, c.match_text ?? `${c.title}\n${c.text}`)) held.add(t);
    if (held.size === wanted.size) return [];
  }
  return names.filter((n) => !held.has(n));
}

/**
 * `mine` matches some of the query's terms, all of them among `theirs`, which match more.
 * An item matching none is a semantic match, not a partial keyword one, and is never held so.
 */
export function isPartialOf(mine: ReadonlySet<string>, theirs: ReadonlySet<string>): boolean {
  if (mine.size === 0 || mine.size >= theirs.size) return false;
  for (const t of mine) if (!theirs.has(t)) return false;
  return true;
}

/** A display-only snippet cut by some other tool ("…" or "..." at the end). */
export function isTruncatedSnippet(text: string): boolean {
  return /(?:…|\.\.\.|\[\.\.\.\])\s*$/u.test(text.trim());
}

/** The agent already quoted this text in a recent reply. */
export function isQuoted(text: string, assistantNormalised: readonly string[]): boolean {
  const body = normaliseBody(text);
  if (body.length < 20) return false;
  const probe = body.length <= 200 ? body : body.slice(0, 120);
  return assistantNormalised.some((a) => a.includes(probe));
}

/** A title with no letters, or a short prefix plus a hash, says nothing: use the body's first sentence. */
export function repairTitle(title: string, body: string): string {
  const bad = !/\p{L}/u.test(title) || /^[\p{L}\s]{0,16}\b[0-9a-f]{4,}(?:\.{3}|…)?$/iu.test(title.trim()) || /^\S{0,12}\s*[0-9a-f]{8,}$/i.test(title.trim());
  if (!bad) return title;
  const sentence = body.trim().split(/(?<=[.!?。！？])\s+|\n/u)[0] ?? body;
  // cut between whole characters, as a memory's own title is (fold.ts firstLine)
  return sentence.length > 120 ? `${headOf(sentence, 119)}…` : sentence;
}

export { excerpt } from '../text/excerpt.js';

function present(c: DeliveryCandidate, rules: DeliveryRules): DeliveredItem {
  const cut = excerpt(c.text, rules.excerpt_chars);
  return {
    key: c.key,
    layer: c.layer,
    kind: c.kind,
    title: repairTitle(c.title, c.text),
    text: cut.text,
    excerpt: cut.excerpt,
    verdict: c.verdict as number,
    ...(c.fingerprint ? { fingerprint: c.fingerprint } : {}),
  };
}
