// The contract every projection meets. A projection is a fold over the log: apply()
// does no I/O; the runner owns reading, snapshot files and catch-up.
import { createHash } from 'node:crypto';
import { Packr } from 'msgpackr';
import type { LogRecord } from '../src/events/index.js';

export interface Projection {
  /** stable name: the snapshot folder and the `--projection` argument */
  readonly name: string;
  /** bump when apply() changes meaning, so old snapshots are discarded and rebuilt */
  readonly version: number;
  /** fold one committed record into the state; unknown types must be skipped, not thrown on */
  apply(record: LogRecord): void;
  /**
   * Optional: the record types apply() acts on, when it skips every other (a rebuild's fold
   * worker is then handed only these). Absent: any type may matter.
   */
  readonly types?: ReadonlySet<string>;
  /** the state as plain msgpack-able data */
  snapshot(): unknown;
  /** replace the state with a snapshot() result */
  load(state: unknown): void;
  /** back to the empty state (before genesis) */
  reset(): void;
  /** hex digest of the state: equal digests mean equal states (rebuild vs catch-up) */
  digest(): string;
  /**
   * Optional: write side files (e.g. an HNSW index) that belong to the snapshot into `dir`.
   * The runner gives each snapshot its own fresh folder and removes older ones.
   */
  persistFiles?(dir: string): void;
  /** Optional: after load(), read the side files persistFiles() wrote (may do it in the background); throw or reject if unusable. */
  restoreFiles?(dir: string): void | Promise<void>;
  /**
   * Optional: start reading the side files of a usable snapshot before load() (the runner calls
   * it as soon as the snapshot is checked); restoreFiles() then takes what was read. A file that
   * cannot be read here is simply read again, or reported, by restoreFiles().
   */
  prefetchFiles?(dir: string): void;
  /** Optional: true after load() read an older snapshot format (the runner then writes the current one at its next snapshot). */
  readonly loadedOlderFormat?: boolean;
  /**
   * Optional: build what a first query would otherwise build (derived lookups), about `budgetMs`
   * of it at a time; true once nothing is left. The runner calls it in slices between other work
   * after open (a million records' lookups take seconds: one call would hold every request).
   */
  warm?(budgetMs: number): boolean;
}

// variableMapSize: projection states hold maps with more than 65,535 keys.
const canonicalPackr = new Packr({ useRecords: false, moreTypes: false, variableMapSize: true });

/** Sort object keys recursively so equal states encode to equal bytes whatever the insertion order. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value instanceof Uint8Array) return value;
  if (value instanceof Map) return canonical(Object.fromEntries([...value.entries()].map(([k, v]) => [String(k), v])));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = canonical((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

export function canonicalDigest(value: unknown): string {
  return createHash('sha256')
    .update(canonicalPackr.pack(canonical(value)))
    .digest('hex');
}

/**
 * A projection whose whole state is one plain, msgpack-able value: snapshot, load, reset
 * and digest come for free; subclasses write only apply() and their queries.
 */
export abstract class PlainStateProjection<S> implements Projection {
  abstract readonly name: string;
  abstract readonly version: number;
  protected state: S;

  constructor(private readonly empty: () => S) {
    this.state = empty();
  }

  abstract apply(record: LogRecord): void;

  snapshot(): S {
    return this.state;
  }

  load(state: unknown): void {
    // snapshot files are checksummed by the runner before this is trusted
    this.state = state as S;
  }

  reset(): void {
    this.state = this.empty();
  }

  digest(): string {
    return canonicalDigest(this.state);
  }
}
