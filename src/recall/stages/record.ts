// Stage 6, record: what was considered, judged and delivered becomes events
// (recall.performed, verdict.recorded, delivery.made), appended together unless read-only.
import { isKiokuError, type ErrorCode } from '../../errors.js';
import { compactRecall, compactVerdicts, type AppendInput } from '../../events/index.js';
import type { RecallConfig } from '../config.js';
import type { RecallContext, RecallCore } from '../core.js';
import type { DeliveryResult } from '../delivery.js';
import type { LaneRanks } from '../explain.js';
import type { BackendDiagnostic } from '../packet.js';
import type { Judged } from './judge.js';
import type { RecallPlan } from './plan.js';
import type { Ranked } from './rank.js';

export interface RecallOutcome {
  mode: 'keyword' | 'hybrid';
  ranked: Ranked;
  judged: Judged;
  result: DeliveryResult;
  laneRanks: Map<string, LaneRanks>;
  backends: Record<string, BackendDiagnostic>;
}

export function recallEvents(config: RecallConfig, plan: RecallPlan, context: RecallContext, o: RecallOutcome): AppendInput[] {
  const { ns, request, recallId, queries } = plan;
  const { ranked, judged, result, laneRanks } = o;
  const { pool } = judged;
  const actor = context.actor ?? 'recall';
  const ids = { ...(context.turn_id ? { turn_id: context.turn_id } : {}), ...(request.session_id ? { session_id: request.session_id } : {}) };
  const deliveredKeys = new Set(result.items.map((i) => i.key));
  const returned = new Set(ranked.ranked.slice(0, request.limit).map((s) => s.entry.key));
  const inPool = new Set(pool.map((s) => s.entry.key));
  const logged = ranked.ranked.slice(0, Math.max(request.limit, config.judge_pool, 50));
  const events: AppendInput[] = [
    {
      type: 'recall.performed',
      ns,
      actor,
      data: {
        recall_id: recallId,
        ...ids,
        retrieval_mode: o.mode,
        queries: queries.map((q) => ({ kind: q.kind, text: q.text.slice(0, 2_000) })),
        ...compactRecall({
          prefix: `ev1:${ns}:`,
          candidates: logged.map((s) => ({
            evidence_key: s.entry.key,
            score: s.score,
            lanes: laneRanks.get(s.entry.key) ?? {},
            ...(s.entry.fingerprint ? { fingerprint: s.entry.fingerprint } : {}),
            flags: {
              returned: returned.has(s.entry.key) || deliveredKeys.has(s.entry.key),
              judged: inPool.has(s.entry.key),
              demoted: s.demoted === true,
              meta: s.entry.meta === true,
            },
            ...(result.held.has(s.entry.key) ? { held: result.held.get(s.entry.key) } : {}),
          })),
          backends: o.backends,
        }),
        filtered_counts: ranked.filtered,
        options: request.options as unknown as Record<string, unknown>,
      },
    },
  ];
  if (judged.judged.status !== 'disabled' && pool.length) {
    events.push({
      type: 'verdict.recorded',
      ns,
      actor,
      data: {
        recall_id: recallId,
        ...(context.turn_id ? { turn_id: context.turn_id } : {}),
        judge: judged.judged.judge,
        status: judged.judged.status,
        ...compactVerdicts(
          `ev1:${ns}:`,
          pool.map((s) => ({ evidence_key: s.entry.key, score: judged.judged.verdicts.get(s.entry.key) ?? null })),
        ),
      },
    });
  }
  if (result.items.length) {
    events.push({
      type: 'delivery.made',
      ns,
      actor,
      data: {
        recall_id: recallId,
        ...ids,
        items: result.items.map((it) => ({
          evidence_key: it.key,
          verdict: it.verdict,
          ...(it.fingerprint ? { fingerprint: it.fingerprint } : {}),
          ...(it.window ? { window: it.window } : {}),
          ...(it.window && it.window_fingerprints ? { window_fingerprints: it.window_fingerprints } : {}),
        })),
      },
    });
  }
  return events;
}

/** The record of an acknowledgement: asked, nothing searched. */
export function skippedEvent(plan: RecallPlan, context: RecallContext): AppendInput {
  return {
    type: 'recall.performed',
    ns: plan.ns,
    actor: context.actor ?? 'recall',
    data: {
      recall_id: plan.recallId,
      retrieval_mode: 'skipped',
      queries: [],
      ...compactRecall({ prefix: `ev1:${plan.ns}:`, candidates: [] }),
      ...(context.turn_id ? { turn_id: context.turn_id } : {}),
      ...(plan.request.session_id ? { session_id: plan.request.session_id } : {}),
    },
  };
}

/**
 * A store refusing writes (a full disk) or out of reach (a shared store's database away) must not
 * fail a read: the packet answers, marked, without its record. The record is not kept to append
 * later: it would be dated when the store came back, and lost with the process meanwhile.
 */
const REFUSED_WRITES: ReadonlySet<ErrorCode> = new Set(['KIOKU_STORAGE_FULL', 'KIOKU_LOG_WRITE_FAILED', 'KIOKU_STORE_UNAVAILABLE']);

/**
 * Append the events (unless read-only) and wait until the read models have seen them. Returns
 * the packet's warnings: `record_not_saved:<code>` when the store refused the record.
 */
export async function record(core: RecallCore, context: RecallContext, events: AppendInput[]): Promise<string[]> {
  if (context.readOnly || events.length === 0) return [];
  let appended;
  try {
    appended = await core.log.appendAll(events);
  } catch (err) {
    if (isKiokuError(err) && REFUSED_WRITES.has(err.code)) return [`record_not_saved:${err.code}`];
    throw err;
  }
  await core.projections.waitFor(appended.at(-1)?.seq ?? 0);
  return [];
}
