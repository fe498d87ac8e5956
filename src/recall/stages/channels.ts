// Stage 2, channels: every retrieval lane answers the planned queries with ranked evidence
// keys. A channel is one file in src/recall/channels/, registered in its index.ts.
import { CHANNELS, ownVisibleTraces, type ChannelOutput } from '../channels/index.js';
import type { OrgCaller } from '../../knowledge/audience.js';
import type { RecallConfig } from '../config.js';
import type { RecallCore } from '../core.js';
import type { EmbeddedQueries } from '../dense.js';
import type { LaneHit } from '../fusion.js';
import type { BackendDiagnostic } from '../packet.js';
import type { RecallPlan } from './plan.js';
import { feedbackLanes } from '../feedback.js';

export interface ChannelResults {
  lists: Map<string, LaneHit[]>;
  backends: Record<string, BackendDiagnostic>;
  warnings: string[];
  filteredByLayer: Record<string, number>;
  embedded: EmbeddedQueries;
  timings: Record<string, number>;
}

/** Run the lexical channels while the model embeds the queries, then the dense ones; `audience`: the caller's (ChannelInput). */
export async function runChannels(
  core: RecallCore,
  config: RecallConfig,
  plan: RecallPlan,
  embedding: Promise<EmbeddedQueries>,
  audience?: OrgCaller,
): Promise<ChannelResults> {
  const out: ChannelResults = { lists: new Map(), backends: {}, warnings: [], filteredByLayer: {}, embedded: { ms: 0, warnings: [] }, timings: {} };
  // a node cut off from its shared store answers from what it has: say so in every packet (MCP clients see no headers)
  const shared = core.log.health?.();
  if (shared && !shared.connected) out.warnings.push(`store_unreachable:stale_since_ms=${shared.disconnected_ms ?? 0}`);
  const take = (o: ChannelOutput): void => {
    for (const [name, hits] of o.lanes) out.lists.set(name, hits);
    Object.assign(out.backends, o.backends);
    out.warnings.push(...(o.warnings ?? []));
    if (o.filteredByLayer) out.filteredByLayer = o.filteredByLayer;
  };
  const t0 = performance.now();
  const exclude = ownVisibleTraces(core.projections.views.records, plan.ns, plan.request);
  const pending: ChannelOutput[] = [];
  for (const channel of CHANNELS) if (!channel.dense) pending.push(channel.run({ core, config, plan, embedded: out.embedded, exclude, audience }));
  out.timings['keyword_ms'] = round(performance.now() - t0);
  const embedded = await embedding;
  out.embedded = embedded;
  out.timings['embed_ms'] = embedded.ms;
  if (embedded.backend) out.backends['vector'] = embedded.backend;
  out.warnings.push(...embedded.warnings);
  for (const o of pending) take(o);
  for (const channel of CHANNELS) if (channel.dense) take(channel.run({ core, config, plan, embedded, exclude, audience }));
  // pseudo-relevance feedback: lanes from the first pass's best candidates (feedback.ts; off unless weighed)
  const t1 = performance.now();
  const feedback = feedbackLanes(core, config, plan, out.lists, embedded, exclude, audience);
  for (const [name, hits] of feedback) out.lists.set(name, hits);
  if (feedback.length) out.timings['feedback_ms'] = round(performance.now() - t1);
  return out;
}

const round = (x: number): number => Math.round(x * 100) / 100;
