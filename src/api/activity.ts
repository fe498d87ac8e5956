// What a namespace has been doing, for the web page's overview and its list of turns: the recent
// turns (hook, MCP and HTTP turns alike: every turn.started) with what each delivered and why the
// other candidates were held back (counted by the delivery rule that held them), items by kind, and
// per day the turns, the items delivered and the items added. One turn's events in full are
// `artifacts`; replaying turns under other rules is `replay`.
import { z } from 'zod';
import { namespaceSchema } from '../events/index.js';
import type { KiokuStore } from '../store.js';
import type { RecordEntry } from '../knowledge/item.js';
import { evidenceKey } from '../knowledge/evidence.js';

/** GET /v1/activity: the last `days` days (default 14), `limit` turns (default 20) started before seq `before`. */
export const activitySchema = z.strictObject({
  namespace: namespaceSchema.optional(),
  days: z.number().int().min(1).max(90).optional(),
  limit: z.number().int().min(1).max(100).optional(),
  /** the answer's next_before: the turns started before that log seq */
  before: z.number().int().min(1).optional(),
});
export type ActivityInput = z.input<typeof activitySchema>;

export interface TurnSummary {
  turn_id: string;
  session_id: string;
  query: string;
  started_at: string;
  /** the seq of turn.started: pass it as `before` for the turns started earlier */
  seq: number;
  completed: boolean;
  /** evidence keys delivered, in order */
  delivered: string[];
  /** candidates the recall ranked */
  candidates: number;
  /** candidates judged and held back, by the delivery rule that held them */
  held: Record<string, number>;
  /** candidates each retrieval lane found (`<channel>:<query kind>`) */
  lanes: Record<string, number>;
}

export interface ActivityAnswer {
  namespace: string;
  days: number;
  /** active items by kind (memories by their kind; documents by layer) */
  by_kind: Record<string, number>;
  per_day: { day: string; turns: number; delivered: number; items_added: number }[];
  turns: TurnSummary[];
  /** pass as `before` for older turns; null: none are left */
  next_before: number | null;
}

const DAY = 86_400_000;
const dayOf = (t: number): string => new Date(t).toISOString().slice(0, 10);
/** The UTC day of an ISO time: sliced when it is in UTC already (Date.parse costs ~2 µs an item at 100k), parsed otherwise. */
function isoDay(iso: string): string | undefined {
  if (iso.length === 24 && iso.endsWith('Z')) return iso.slice(0, 10);
  const at = Date.parse(iso);
  return Number.isNaN(at) ? undefined : dayOf(at);
}

/** The activity of namespace `ns` (validated input; `now` for tests and the pinned clock). */
/** `visible`: the caller's audience (issue 34): another member's items and turns are neither listed nor counted. */
export async function activity(
  store: KiokuStore,
  ns: string,
  input: z.output<typeof activitySchema>,
  now = Date.now(),
  visible?: (e: RecordEntry) => boolean,
): Promise<ActivityAnswer> {
  const records = store.projections.views.records;
  const hidden = (e: RecordEntry | undefined): boolean => visible !== undefined && e !== undefined && !visible(e);
  const days = input.days ?? 14;
  const limit = input.limit ?? 20;
  const first = Math.floor(now / DAY) * DAY - (days - 1) * DAY;
  // days by index from the window's first day: one division per item, no date strings in the loop
  const perDay: { day: string; turns: number; delivered: number; items_added: number }[] = [];
  for (let t = first; t <= now; t += DAY) perDay.push({ day: dayOf(t), turns: 0, delivered: 0, items_added: 0 });
  const dayAt = (t: number) => (t >= first ? perDay[Math.floor((t - first) / DAY)] : undefined);
  const byDay = new Map(perDay.map((d) => [d.day, d]));
  const byKind: Record<string, number> = {};
  for (const e of store.projections.views.records.all()) {
    if (e.ns !== ns || hidden(e)) continue;
    const kind = e.layer === 'memory' ? (e.kind ?? 'memory') : e.layer;
    byKind[kind] = (byKind[kind] ?? 0) + 1;
    // a document counts once (its first section)
    if (e.section === undefined || e.position === 1) {
      const d = byDay.get(isoDay(e.occurred_at) ?? '');
      if (d) d.items_added += 1;
    }
  }
  const page: { id: string; seq: number }[] = [];
  for (const [id, turn] of store.projections.views.turns.newestFirst()) {
    if (turn.ns !== ns || hidden(records.get(evidenceKey({ ns, layer: 'trace', id })))) continue;
    const d = dayAt(turn.started_at);
    if (d) {
      d.turns += 1;
      d.delivered += turn.delivered.length;
    }
    const seq = turn.seqs[0] as number;
    if (page.length <= limit && (input.before === undefined || seq < input.before)) page.push({ id, seq });
    if (page.length > limit && turn.started_at < first) break;
  }
  const more = page.length > limit;
  const turns = await Promise.all(page.slice(0, limit).map((p) => summary(store, p.id)));
  return { namespace: ns, days, by_kind: byKind, per_day: perDay, turns, next_before: more ? (turns.at(-1)?.seq ?? null) : null };
}

/** One turn as the list shows it: its recall event read for the candidates and the holds. */
async function summary(store: KiokuStore, id: string): Promise<TurnSummary> {
  const turn = store.projections.views.turns.turn(id);
  if (!turn) throw new Error(`turn ${id} vanished from the turns projection`);
  let candidates = 0;
  const held: Record<string, number> = {};
  const lanes: Record<string, number> = {};
  for (const seq of turn.seqs) {
    const r = await store.log.get(seq);
    if (r?.type !== 'recall.performed') continue;
    // the stored columns (src/events/recall-event.ts): held reason → candidate indexes, lane → (index, rank, score) triples
    const data = r.data as { keys: unknown[]; held?: Record<string, number[]>; lanes?: Record<string, number[]> };
    candidates += data.keys.length;
    for (const [reason, indexes] of Object.entries(data.held ?? {})) held[reason] = (held[reason] ?? 0) + indexes.length;
    for (const [lane, cells] of Object.entries(data.lanes ?? {})) lanes[lane] = (lanes[lane] ?? 0) + Math.floor(cells.length / 3);
  }
  return {
    turn_id: id,
    session_id: turn.session_id,
    query: turn.query,
    started_at: new Date(turn.started_at).toISOString(),
    seq: turn.seqs[0] as number,
    completed: turn.completed !== undefined,
    delivered: [...turn.delivered],
    candidates,
    held,
    lanes,
  };
}

export interface UsageAnswer {
  evidence_key: string;
  /** recall's counters: a candidate, judged, judged relevant, returned (zeros: never a candidate) */
  usage: { considered: number; judged: number; relevant: number; returned: number };
  /** judged decisively and never useful: recall demotes it */
  demoted: boolean;
  /** delivered, looked up (returned by a recall), fetched by key; when last accessed, and when last used (delivered or fetched) */
  access: { delivered: number; looked_up: number; fetched: number; last: string | null; last_used: string | null };
  /** the lifecycle state the job last moved it to (candidate until it first ran over it), and when; archived sinks in recall until a use */
  lifecycle: { state: string; since: string | null };
}

/** How one item has been used (its namespace settled by the facade). */
export function itemUsage(store: KiokuStore, ns: string, key: string): UsageAnswer {
  const views = store.projections.views;
  const usage = views.usage.get(ns, key);
  const access = views.access.get(ns, key);
  const life = views.lifecycle.get(ns, key);
  return {
    evidence_key: key,
    usage: { considered: usage?.considered ?? 0, judged: usage?.judged ?? 0, relevant: usage?.relevant ?? 0, returned: usage?.returned ?? 0 },
    demoted: views.usage.demoted(ns, key),
    access: {
      delivered: access?.delivered ?? 0,
      looked_up: access?.looked_up ?? 0,
      fetched: access?.fetched ?? 0,
      last: access ? new Date(access.last).toISOString() : null,
      last_used: access?.last_used ? new Date(access.last_used).toISOString() : null,
    },
    lifecycle: { state: life?.state ?? 'candidate', since: life ? new Date(life.at).toISOString() : null },
  };
}
