// access: per namespace and evidence key, how often and how lately an item was used — delivered
// to an agent (`delivery.made`: the item and every turn or section its window handed over with it),
// looked up (returned by a recall, `recall.performed`), or fetched by its key (`evidence.fetched`) —
// and when each item was last written. The ACT-R re-rank
// (src/recall/activation.ts) and the lifecycle job (src/recall/lifecycle.ts) read it; the
// adaptive-recall seed (004) kept the same per-item counter and last-accessed time.
import { FOLDED_TYPES } from '../src/knowledge/fold.js';
import type { EventData, LogRecord } from '../src/events/index.js';
import { RECALL_FLAG_BITS } from '../src/events/index.js';
import { canonicalDigest, type Projection } from './projection.js';

export interface AccessCounts {
  delivered: number;
  looked_up: number;
  fetched: number;
  /** every access of the three kinds */
  count: number;
  /** log time (ms) of the latest access */
  last: number;
  /**
   * log time (ms) of the latest use by an agent — delivered or fetched, not merely looked up (0: never).
   * What brings an archived item back: a recall's list holds its ten best matches whether or not any
   * was any good, and counting that as a use lifted an archived item after the first recall it sank in.
   */
  last_used: number;
}

/** [delivered, looked_up, fetched, last ms, last used ms]: five numbers per key keep a rebuild's state small. */
type Row = [number, number, number, number, number];

interface AccessState {
  rows: Record<string, Record<string, Row>>;
  /** seq of a knowledge event → its log time (ms): when an item (whose entry names its seq) was last written */
  written: Record<string, number>;
}

const ACCESS_TYPES = ['delivery.made', 'recall.performed', 'evidence.fetched'];

export class AccessProjection implements Projection {
  readonly name = 'access';
  // 2: a window's turns and sections count as delivered; last_used (delivered or fetched) beside last
  readonly version = 2;
  readonly types: ReadonlySet<string> = new Set([...ACCESS_TYPES, ...FOLDED_TYPES]);
  private rows = new Map<string, Map<string, Row>>();
  private written = new Map<number, number>();

  private row(ns: string, key: string): Row {
    let byKey = this.rows.get(ns);
    if (byKey === undefined) this.rows.set(ns, (byKey = new Map()));
    let r = byKey.get(key);
    if (r === undefined) byKey.set(key, (r = [0, 0, 0, 0, 0]));
    return r;
  }

  /** One access of `key` by `record`. A method, not a closure made per event: under tsx (keepNames)
   * each closure costs a __name call, which a CPU profile put at half of this fold (issue 35). */
  private touch(record: LogRecord, key: string, column: 0 | 1 | 2): void {
    const r = this.row(record.ns, key);
    r[column] += 1;
    r[3] = Math.max(r[3], record.ts);
    if (column !== 1) r[4] = Math.max(r[4], record.ts);
  }

  apply(record: LogRecord): void {
    if (FOLDED_TYPES.has(record.type)) {
      this.written.set(record.seq, record.ts);
      return;
    }
    if (record.type === 'delivery.made') {
      const d = record.data as EventData<'delivery.made'>;
      // a turn or section handed over inside an item's window was shown to the agent as much as the item
      for (const key of new Set(d.items.flatMap((i) => [i.evidence_key, ...(i.window ?? [])]))) this.touch(record, key, 0);
    } else if (record.type === 'recall.performed') {
      // columns read directly: decoding every candidate's lanes (recallCandidates) would cost a rebuild for nothing
      const d = record.data as EventData<'recall.performed'>;
      const seen = new Set<string>();
      d.keys.forEach((k, i) => {
        if (((d.flags[i] ?? 0) & RECALL_FLAG_BITS.returned) === 0) return;
        const key = k.startsWith('ev1:') ? k : d.key_prefix + k;
        if (seen.has(key)) return;
        seen.add(key);
        this.touch(record, key, 1);
      });
    } else if (record.type === 'evidence.fetched') {
      const d = record.data as EventData<'evidence.fetched'>;
      for (const key of new Set(d.evidence_keys)) this.touch(record, key, 2);
    }
  }

  /** The accesses of one item (undefined: never accessed). */
  get(ns: string, key: string): AccessCounts | undefined {
    const r = this.rows.get(ns)?.get(key);
    return r && { delivered: r[0], looked_up: r[1], fetched: r[2], count: r[0] + r[1] + r[2], last: r[3], last_used: r[4] };
  }

  /** Log time (ms) of the event at `seq` when it wrote knowledge (an entry's `seq`), else undefined. */
  writtenAt(seq: number): number | undefined {
    return this.written.get(seq);
  }

  snapshot(): AccessState {
    const rows: AccessState['rows'] = {};
    for (const [ns, byKey] of this.rows) rows[ns] = Object.fromEntries(byKey);
    const written: AccessState['written'] = {};
    for (const [seq, ts] of this.written) written[seq] = ts;
    return { rows, written };
  }

  load(state: unknown): void {
    const s = state as AccessState;
    this.rows = new Map(Object.entries(s.rows).map(([ns, byKey]) => [ns, new Map(Object.entries(byKey))]));
    this.written = new Map(Object.entries(s.written).map(([seq, ts]) => [Number(seq), ts]));
  }

  reset(): void {
    this.rows = new Map();
    this.written = new Map();
  }

  digest(): string {
    return canonicalDigest(this.snapshot());
  }
}
