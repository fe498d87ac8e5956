export { recall, recallParsed, denseQueryText, type RecallCore, type RecallContext } from './pipeline.js';
export { openSession, startTurn, completeTurn, deliveryOutcomes, visibleTurn } from './turns.js';
export { isAcknowledgement } from './acknowledge.js';
export {
  planQueries,
  boundConversation,
  isTopicChange,
  withoutTopicChange,
  conversationFingerprint,
  lastSubstantiveSentence,
  type ConversationMessage,
  type PlannedQuery,
} from './conversation.js';
export { parseTimeRange, nameCandidates, inRange, type TimeRange } from './cues.js';
export { fuse, fuseRrf, fuseWeightedMinMax, laneWeight, type FusedScore, type FusionMethod, type LaneHit, type LaneLists } from './fusion.js';
export {
  deliver,
  excerpt,
  repairTitle,
  isQuoted,
  isTruncatedSnippet,
  isPartialOf,
  rulesWith,
  PARTIAL_OF,
  DEFAULT_DELIVERY_RULES,
  HOLD_REASONS,
  type DeliveryCandidate,
  type DeliveryRules,
  type DeliveryState,
  type HoldReason,
  type PartialOf,
} from './delivery.js';
export { utteranceTerms, matchedTerms, matchText } from './terms.js';
export { DEFAULT_RECALL_CONFIG, laneWeights, measurementConfig, type RecallConfig } from './config.js';
export { neighbourBoosts, isQuestion, sessionNeighbours, type NeighbourSource, type Neighbours } from './neighbours.js';
export { recallRequestSchema, recallOptionsSchema, type RecallRequest, type RecallOptions } from './request.js';
export { EmbeddingCache } from './embedding-cache.js';
export type { RecallPacket, PacketRecord, BackendDiagnostic, BackendStatus } from './packet.js';
export * from './judge/index.js';
export { clockFromEnv, createRecallCore, embeddingIndexer, judgeFromEnv, type CoreOptions } from './setup.js';
export { deliveryReport, OVERLAP_BUCKETS, type DeliveryReport } from './reports.js';
export { replay, seqAtTime, type ReplayOptions, type ReplayReport, type ReplayedTurn } from './replay.js';
export { renderContext } from './render.js';
export { DEFAULT_AGING, activation, activationBoost, decayClass, nextState, strength, type AgingConfig, type DecayClass, type LifecycleState } from './aging.js';
