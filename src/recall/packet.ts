// The recall packet: what every interface returns for a recall or a turn start.
import type { RetrievalMode } from '../events/index.js';
import type { Layer } from '../knowledge/evidence.js';
import type { DeliveredItem, HoldReason } from './delivery.js';
import type { JudgeStatus } from './judge/index.js';
import type { RecallOptions } from './request.js';

export type BackendStatus = 'disabled' | 'unavailable' | 'empty' | 'used' | 'filtered' | 'error' | 'timeout' | 'invalid_response';

export interface BackendDiagnostic {
  attempted: boolean;
  used: boolean;
  status: BackendStatus;
  /** vector lane: items of the namespace that have no vector yet (the lane cannot find them) */
  waiting_for_vectors?: number;
}

export interface PacketRecord {
  id: string;
  evidence_key: string;
  layer: Layer;
  title: string;
  heading?: string;
  excerpt: string;
  /** the excerpt was cut at a paragraph boundary */
  excerpt_truncated: boolean;
  score: number;
  rank_score: number;
  occurred_at: string;
  provenance: { ns: string; seq: number; source_path?: string; session_id?: string; kind?: string };
  /** in an org (issue 34): the member who owns it (absent: the namespace's), and whether that is the caller */
  owner?: string;
  mine?: boolean;
  /** why this was recalled, and why it was or was not delivered */
  why: {
    /** each lane's weighted, normalised contribution to the fused score (plus cue, neighbour and demotion parts) */
    lanes: Record<string, number>;
    /**
     * each lane's raw score and rank for this item: min-max normalisation gives the weakest hit
     * of a lane 0, so a match with few competitors is explained here, not by its 0 contribution
     */
    lane_hits: Record<string, { rank: number; score: number }>;
    fused_score: number;
    demoted: boolean;
    verdict?: number | null;
    delivered: boolean;
    /** which passage of a section longer than one excerpt was shown (and delivered): `passage 3/7 (chars 4120–6010)` */
    passage?: string;
    held_back?: HoldReason | 'not_judged';
  };
}

/** A delivered item as the packet carries it. */
export type DeliveredRecord = Omit<DeliveredItem, 'key' | 'fingerprint' | 'window_fingerprints'> & { evidence_key: string; owner?: string; mine?: boolean };

export interface RecallPacket {
  recall_id: string;
  namespace: string;
  retrieval_mode: RetrievalMode;
  records: PacketRecord[];
  delivery: DeliveredRecord[];
  judge: { status: JudgeStatus; judge: string; calls: number; ms: number; tokens?: { prompt: number; completion: number }; error?: string };
  backends: Record<string, BackendDiagnostic>;
  filtered_counts: { total: number; by_layer: Record<string, number> };
  warnings: string[];
  degraded: boolean;
  options: RecallOptions;
  limit: number;
  conversation_fingerprint: string;
  conversation_messages: number;
  queries: { kind: string; text: string }[];
  timings: Record<string, number>;
  time_cue?: { from: string; to: string; phrase: string };
}
