export { EventLog, decodeRecord, type Appended, type AppendOptions, type ExpectedHead, type Head, type ReadOptions, type TailOptions } from './event-log.js';
export { GENESIS_HASH_HEX, seqKey, parseSeqKey, encodeBody, encodeFrame, splitFrame, decodeBody } from './codec.js';
export { logSublevels, HEAD_KEY, type LevelStore, type LogSublevels } from './level.js';
export { openLevelStore, openLog, logDir, mapOpenError } from './store.js';
export { verifyChain, DAMAGE_KINDS, type ChainReport, type Damage, type DamageKind } from './verify.js';
export { verifyStore, assertIntact, type VerifyReport, type AnchorSummary } from './integrity.js';
export { readAnchors, loadAnchorKey, loadOrCreateAnchorKey, signAnchor, appendAnchor, type Anchor } from './anchors.js';
