// The contract's vocabulary: the manifest of capabilities, the store a case runs on, and a case.
import type { EventStore } from '../port.js';

/** What the manifest may declare; absent means not supported (the cases that need it are skipped). */
export interface StoreCapabilities {
  /** `health()`: a shared store's connection and lag */
  health?: boolean;
  /** `holdsRole(role)`: one holder of a role among every process writing the store */
  holdsRole?: boolean;
  /** `exclusive(name, task)`: a lock every process writing the store takes turns on */
  exclusive?: boolean;
  /** `importChain(frames)`: an exported chain written verbatim into an empty store */
  importChain?: boolean;
  /** the factory's `openAnother()`: a second log over the same stored chain, as another node */
  shared?: boolean;
  /** the factory's `writeRaw()`: frames stored past the log (a newer writer's records, damage) */
  writeRaw?: boolean;
}

export type Capability = keyof StoreCapabilities;

/** One fresh store as a case sees it. */
export interface ContractStore {
  log: EventStore;
  /** close the log and open another over the same stored chain */
  reopen(): Promise<EventStore>;
  /** close everything (every log it opened) and remove what the store left behind */
  cleanup(): Promise<void>;
  /** (shared) another log over the same stored chain; the case closes it */
  openAnother?(): Promise<EventStore>;
  /** (writeRaw) close the log, store these frames and this head as they are, and open again */
  writeRaw?(frames: { seq: number; type: string; frame: Buffer }[], head: { seq: number; hash: Buffer; ts: number }): Promise<EventStore>;
}

export interface LogStoreFactory {
  name: string;
  /** a fresh, empty store */
  create(): Promise<ContractStore>;
}

export interface CaseContext {
  store: ContractStore;
  supports: StoreCapabilities;
  factory: LogStoreFactory;
}

export interface CaseDef {
  name: string;
  /** capabilities the case needs (all of them) */
  needs?: readonly Capability[];
  run(t: CaseContext): Promise<void>;
}
