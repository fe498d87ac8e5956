export type { Appended, AppendOptions, EventStore, ExpectedHead, FrameRange, Head, ReadOptions, StoreKind, TailOptions } from './port.js';
export { EventLog } from './event-log.js';
export { decodeRecord, GroupCommitStore } from './chain.js';
export { MemoryChain, MemoryEventLog } from './memory.js';
export { GENESIS_HASH_HEX, seqKey, parseSeqKey, encodeBody, encodeFrame, splitFrame, decodeBody, peekType } from './codec.js';
export { logSublevels, HEAD_KEY, type LevelStore, type LogSublevels } from './level.js';
export { openLevelStore, openLog, logDir, mapOpenError, ackedHeadFile } from './store.js';
export { readAckedHead, type AckedHead } from './acked-head.js';
export {
  verifyChain,
  verifySource,
  levelChainSource,
  DAMAGE_KINDS,
  type ChainReport,
  type ChainSource,
  type Damage,
  type DamageKind,
  type VerifyChainOptions,
} from './verify.js';
export { verifyStore, assertIntact, type VerifyReport, type AnchorSummary } from './integrity.js';
export { readAnchors, loadAnchorKey, loadOrCreateAnchorKey, signAnchor, appendAnchor, type Anchor } from './anchors.js';
export { PostgresEventLog, type PostgresLogOptions } from './postgres.js';
export { openEventStore, openChainSource, storeDataKeys, type OpenEventStoreOptions } from './open.js';
export type { StoreHealth } from './port.js';
