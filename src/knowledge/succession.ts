// Which new sections hold the text of the sections a re-import retires, so the old keys are
// superseded (pointing at their successors) rather than silently removed. A pure rule:
// 1. the old section was split: its descendants (`a` → `a/b`, `a~2`);
// 2. it was merged upward: its nearest ancestor that still exists (`a/b` → `a`);
// 3. otherwise the new sections holding most of its paragraphs (a moved or renamed heading).
// A section none of these find was deleted: it is removed, as before.
import { normaliseBody } from './evidence.js';

export interface SectionText {
  id: string;
  body: string;
}

/** A paragraph shorter than this says too little to follow it to another section. */
const MIN_PARAGRAPH = 40;

export function sectionSuccession(retired: readonly SectionText[], next: readonly SectionText[]): { section: string; by: string[] }[] {
  const ids = new Set(next.map((s) => s.id));
  const paragraphsOf = (body: string): Set<string> =>
    new Set(
      body
        .split(/\n\s*\n/)
        .map(normaliseBody)
        .filter((p) => p.length >= MIN_PARAGRAPH),
    );
  const nextParagraphs = next.map((s) => ({ id: s.id, paragraphs: paragraphsOf(s.body) }));
  const out: { section: string; by: string[] }[] = [];
  for (const old of retired) {
    if (ids.has(old.id)) continue;
    let by = next.filter((s) => s.id.startsWith(`${old.id}/`) || s.id.startsWith(`${old.id}~`)).map((s) => s.id);
    if (by.length === 0) {
      const ancestor = ancestorsOf(old.id).find((a) => ids.has(a));
      if (ancestor !== undefined) by = [ancestor];
    }
    if (by.length === 0) {
      const mine = paragraphsOf(old.body);
      by = nextParagraphs
        .map((s) => ({ id: s.id, shared: [...s.paragraphs].filter((p) => mine.has(p)).length }))
        .filter((s) => s.shared > 0)
        .sort((a, b) => b.shared - a.shared)
        .map((s) => s.id);
    }
    if (by.length) out.push({ section: old.id, by });
  }
  return out;
}

/** `a/b/c~2` → `a/b/c`, `a/b`, `a`. */
function ancestorsOf(id: string): string[] {
  const out: string[] = [];
  let rest = id.replace(/~\d+$/, '');
  if (rest !== id) out.push(rest);
  for (let slash = rest.lastIndexOf('/'); slash > 0; slash = rest.lastIndexOf('/')) {
    rest = rest.slice(0, slash);
    out.push(rest);
  }
  return out;
}
