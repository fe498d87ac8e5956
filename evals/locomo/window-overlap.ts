// npx tsx evals/locomo/window-overlap.ts <a copy of an eval:locomo --keep-delivery DIR> (it refolds the copy)
// Over a kept LoCoMo delivery run: each recorded delivery's items, windowed as before (each item
// alone, the others' keys only stopping it) and now (withTurnWindows over all: a later window stops
// before an earlier one's turns). Counts deliveries with a repeated line, characters, union of turns.
import { openKioku } from '../../src/kioku.js';
import { HashedEmbedder } from '../../src/embed/index.js';
import { withTurnWindows } from '../../src/recall/stages/deliver.js';
import { sessionNeighbours } from '../../src/recall/neighbours.js';
import { DEFAULT_DELIVERY_RULES } from '../../src/recall/delivery.js';
import { DEFAULT_RECALL_CONFIG } from '../../src/recall/config.js';
const k = await openKioku({ data: process.argv[2] ?? '', embedder: new HashedEmbedder(32) } as never);
const { records, graph } = k.core.projections.views;
const rules = DEFAULT_DELIVERY_RULES;
let deliveries = 0, multi = 0, repeated = 0, charsBefore = 0, charsAfter = 0, unionLost = 0, unionGained = 0, linesBefore = 0, linesAfter = 0;
const nbCache = new Map<string, ReturnType<typeof sessionNeighbours>>();
for await (const r of k.core.log.read({ types: ['delivery.made'] })) {
  const d = r.data as { items: { evidence_key: string; verdict: number }[] };
  const items = d.items.flatMap((i) => {
    const e = records.get(i.evidence_key);
    return e ? [{ key: i.evidence_key, layer: e.layer, kind: 'knowledge' as const, title: e.title, text: e.text, excerpt: false, verdict: i.verdict }] : [];
  });
  if (!items.length) continue;
  deliveries++;
  if (items.filter((i) => i.layer === 'memory').length > 1) multi++;
  let nb = nbCache.get(r.ns);
  if (!nb) nbCache.set(r.ns, (nb = sessionNeighbours(records, graph, r.ns, DEFAULT_RECALL_CONFIG.plain_session_gap_min)));
  const entry = (key: string) => records.get(key);
  const before = items.map((it) => withTurnWindows([it], nb!, entry, undefined, rules.excerpt_chars, rules.turn_window, new Set(items.filter((o) => o.key !== it.key).map((o) => o.key)))[0]!);
  const after = withTurnWindows(items, nb!, entry, undefined, rules.excerpt_chars, rules.turn_window);
  const keys = (xs: typeof before) => xs.flatMap((x) => x.window ?? [x.key]);
  const kb = keys(before), ka = keys(after);
  if (new Set(kb).size !== kb.length) repeated++;
  charsBefore += before.reduce((n, x) => n + x.text.length, 0);
  charsAfter += after.reduce((n, x) => n + x.text.length, 0);
  linesBefore += kb.length; linesAfter += ka.length;
  const sa = new Set(ka), sb = new Set(kb);
  if ([...sb].some((x) => !sa.has(x))) unionLost++;
  if ([...sa].some((x) => !sb.has(x))) unionGained++;
}
console.log(JSON.stringify({ deliveries, multi_memory: multi, with_repeated_turn_before: repeated, chars_before: charsBefore, chars_after: charsAfter, lines_before: linesBefore, lines_after: linesAfter, union_lost: unionLost, union_gained: unionGained }));
await k.close();
