// Log statistics per event type and namespace: counts, stored bytes, seq span.
// The smallest real projection; `kioku log stats` reads it.
import type { LogRecord } from '../src/events/index.js';
import { PlainStateProjection } from './projection.js';

export interface TypeStats {
  count: number;
  bytes: number;
  first_seq: number;
  last_seq: number;
}

export interface NamespaceStats {
  count: number;
  bytes: number;
  types: Record<string, number>;
}

export interface StatsState {
  total: number;
  bytes: number;
  first: { seq: number; ts: number } | null;
  last: { seq: number; ts: number } | null;
  by_type: Record<string, TypeStats>;
  by_namespace: Record<string, NamespaceStats>;
}

function emptyStats(): StatsState {
  return { total: 0, bytes: 0, first: null, last: null, by_type: {}, by_namespace: {} };
}

/** The fold itself, pure: state in, state out (mutated in place for speed). */
export function evolveStats(state: StatsState, record: LogRecord): StatsState {
  state.total += 1;
  state.bytes += record.bytes;
  state.first ??= { seq: record.seq, ts: record.ts };
  state.last = { seq: record.seq, ts: record.ts };
  const t = (state.by_type[record.type] ??= { count: 0, bytes: 0, first_seq: record.seq, last_seq: record.seq });
  t.count += 1;
  t.bytes += record.bytes;
  t.last_seq = record.seq;
  const n = (state.by_namespace[record.ns] ??= { count: 0, bytes: 0, types: {} });
  n.count += 1;
  n.bytes += record.bytes;
  n.types[record.type] = (n.types[record.type] ?? 0) + 1;
  return state;
}

export class StatsProjection extends PlainStateProjection<StatsState> {
  readonly name = 'stats';
  readonly version = 1;
  constructor() {
    super(emptyStats);
  }

  apply(record: LogRecord): void {
    this.state = evolveStats(this.state, record);
  }

  /** Read-only view for reports. */
  current(): Readonly<StatsState> {
    return this.state;
  }
}
