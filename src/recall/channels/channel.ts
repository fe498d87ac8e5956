// What a retrieval channel is: given the plan (and the query vectors), ranked evidence
// keys per lane, named `<channel>:<query kind>`, with its own diagnostics.
import type { OrgCaller } from '../../knowledge/audience.js';
import type { RecallConfig } from '../config.js';
import type { RecallCore } from '../core.js';
import type { EmbeddedQueries } from '../dense.js';
import type { LaneHit } from '../fusion.js';
import type { BackendDiagnostic } from '../packet.js';
import type { RecallPlan } from '../stages/plan.js';

export interface ChannelInput {
  core: RecallCore;
  config: RecallConfig;
  plan: RecallPlan;
  /** the query vectors (vector channels only run once the model answered) */
  embedded: EmbeddedQueries;
  /** keys every lane leaves out inside its query: this session's own visible traces (own-session.ts) */
  exclude: ReadonlySet<string>;
  /** the caller's audience (issue 34; absent: it sees every item): a channel that steps from item to item starts only from items it may see */
  audience?: OrgCaller | undefined;
}

export interface ChannelOutput {
  /** lane name → hits, in the order lanes are fused */
  lanes: [string, LaneHit[]][];
  backends: Record<string, BackendDiagnostic>;
  warnings?: string[];
  /** matches kept out by namespace rules, by layer (counts only) */
  filteredByLayer?: Record<string, number>;
}

export interface Channel {
  name: string;
  /** runs after the query embedding (true) or while the model embeds (false) */
  dense: boolean;
  run(input: ChannelInput): ChannelOutput;
}
