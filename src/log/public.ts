// What an event store written outside this repository needs, from one place: the port it
// implements, the chain rules it reuses so its bytes and hashes are Kioku's (group commit,
// planning a group, decoding, the live tail, verify over its own rows), and the typed errors
// the contract (./contract.ts) expects. A store imports this module and ./contract.ts, nothing
// else; docs/architecture.md "to add a store" walks through it.
export type {
  Appended,
  AppendOptions,
  ChainFrame,
  EncodedRecord,
  EventStore,
  ExpectedHead,
  FrameRange,
  Head,
  ReadOptions,
  StoreHealth,
  StoreKind,
  TailOptions,
} from './port.js';
export type { AppendInput, LogRecord } from '../events/index.js';
export { GroupCommitStore, decodeRecord, follow, hexHead, lastIn, planGroup, type ChainPosition, type PendingWrite } from './chain.js';
export { GENESIS_HASH_HEX, GENESIS_PREV, decodeBody, encodeBody, encodeFrame, seqKey, splitFrame } from './codec.js';
export { verifySource, type ChainReport, type ChainSource, type Damage, type DamageKind, type VerifyChainOptions } from './verify.js';
export { inBatches } from './transfer.js';
export { notEmpty as importTargetNotEmpty } from './chain.js';
export { KiokuError, LogConflictError, isKiokuError } from '../errors.js';
