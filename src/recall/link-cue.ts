// The link cue (issue 30): documentation pages link to the page that holds the facts. Guide
// sections name an option and link its reference page ("the [`pool`](/config/pool) in which the
// test module will run", "[`hookTimeout`](/config/hooktimeout)"); the reference section itself is
// short (Type, Default, CLI) and says the option's name once, so long guide pages outrank it. When
// the best-ranked sections of a question link to a section of the same library, that section gets
// a boost after fusion, more when several of them link to it (and it joins the candidates when no
// lane found it). Only wiki and card sections link (their text is a person's markdown).
import { posix } from 'node:path';
import type { RecordEntry } from '../knowledge/item.js';
import type { Scored } from './judging.js';

/** a markdown link's target: `[text](target)` or `[text](target "title")` */
const LINK = /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/gu;

export interface LinkLookup {
  /** the sections of one document of this namespace and layer, in order */
  document(ns: string, layer: RecordEntry['layer'], id: string): RecordEntry[];
}

/** A heading anchor as a page writes it (`#typecheck-include`) against a section's slug (`typecheck.include`, `typecheck.enabled-typecheck-enabled`). */
const slug = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-|-$/gu, '');

function sectionFor(sections: readonly RecordEntry[], anchor: string | undefined): RecordEntry | undefined {
  if (anchor) {
    const want = slug(anchor);
    const hit = sections.find((s) => {
      const own = slug((s.section ?? '').split('/').at(-1) ?? '');
      return own === want || own.endsWith(`-${want}`) || slug(s.heading ?? '') === want;
    });
    if (hit) return hit;
  }
  return sections[0];
}

/** The keys of the sections of other documents of the library that `entry`'s text links to, each once. */
export function linkedKeys(entry: RecordEntry, lookup: LinkLookup): string[] {
  if ((entry.layer !== 'wiki' && entry.layer !== 'card') || !entry.text.includes('](')) return [];
  const out = new Set<string>();
  for (const m of entry.text.matchAll(LINK)) {
    const target = m[1] as string;
    if (/^[a-z][a-z0-9+.-]*:/iu.test(target) || target.startsWith('//')) continue; // another site
    const hash = target.indexOf('#');
    const path = decodeSafe(hash < 0 ? target : target.slice(0, hash));
    const anchor = hash < 0 ? undefined : decodeSafe(target.slice(hash + 1));
    if (path === '') continue; // the page's own sections (a table of contents) say nothing of the question
    const joined = path.startsWith('/') ? path.slice(1) : posix.join(posix.dirname(entry.id), path);
    const id = posix.normalize(joined).replace(/\.(md|html)$/u, '').replace(/\/$/u, '/index');
    if (id === '' || id === '.' || id.startsWith('..') || id === entry.id) continue;
    const section = sectionFor(lookup.document(entry.ns, entry.layer, id).filter((s) => s.status === 'active'), anchor);
    if (section && section.key !== entry.key) out.add(section.key);
  }
  return [...out];
}

const decodeSafe = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/**
 * The best-ranked sections whose links count, and how many distinct documents must link to a
 * section for the full boost. Vitest dev in process (cue 0.4): 10 and 2 gave answer delivered
 * 0.826 -> 0.848 (vt-050); 5 sources lost a Vue answer, 3 documents for the full boost a Vitest one.
 */
export const LINK_SOURCES = 10;
export const LINK_FULL = 2;

/** Each linked section's boost: `weight` times the share of LINK_FULL documents among the best that link to it. */
export function linkBoosts(best: readonly RecordEntry[], lookup: LinkLookup, weight: number): Map<string, number> {
  const linkers = new Map<string, Set<string>>();
  for (const e of best) {
    for (const key of linkedKeys(e, lookup)) {
      let docs = linkers.get(key);
      if (!docs) linkers.set(key, (docs = new Set()));
      docs.add(`${e.layer}:${e.id}`);
    }
  }
  const out = new Map<string, number>();
  for (const [key, docs] of linkers) out.set(key, weight * Math.min(1, docs.size / LINK_FULL));
  return out;
}

/**
 * The cue applied to the fused candidates (after the other cues): each section the LINK_SOURCES best
 * link to gains its boost (`parts.link_cue`); one no lane found joins them when `admit` lets it.
 */
export function addLinkCue(
  scored: Scored[],
  weight: number,
  lookup: LinkLookup & { get(key: string): RecordEntry | undefined },
  admit: (entry: RecordEntry) => boolean,
  demoted: (key: string) => boolean,
): void {
  if (weight <= 0) return;
  const best = [...scored].sort((a, b) => b.score - a.score).slice(0, LINK_SOURCES).map((s) => s.entry);
  const byKey = new Map(scored.map((s) => [s.entry.key, s]));
  for (const [key, boost] of linkBoosts(best, lookup, weight)) {
    const have = byKey.get(key);
    if (have) have.score += have.parts['link_cue'] = boost;
    else {
      const entry = lookup.get(key);
      if (entry?.status === 'active' && admit(entry)) scored.push({ entry, score: boost, parts: { link_cue: boost }, demoted: demoted(key) });
    }
  }
}
