// The records snapshot's rows (format 3): every entry packed on its own into one buffer, with
// where each ends. A load keeps them packed and unpacks an entry when it is first asked for (or
// when the warm-up reaches it): a million entries unpacked at once were 830 MB of JS heap and
// five to six seconds of a fourteen-second start-up.
import { Packr } from 'msgpackr';
import type { RecordEntry } from '../../src/knowledge/item.js';

/**
 * An entry's fields in row order (its key is kept beside the rows). The first REQUIRED are in
 * every entry; the optional ones follow, rarest last, so that a row leaves off its trailing
 * absent fields (one absent in the middle costs three bytes).
 */
export const ROW_FIELDS = [
  'ns',
  'layer',
  'id',
  'title',
  'text',
  'occurred_at',
  'seq',
  'terms',
  'entities',
  'tags',
  'content_fp',
  'status',
  'kind',
  'fingerprint',
  'attachments',
  'session_id',
  'section',
  'position',
  'heading',
  'owner',
  'source_path',
  'doc_hash',
  'audience',
  'meta',
  'relations',
  'supersedes',
  'asset',
  'superseded_by',
  'retired_seq',
] as const satisfies readonly Exclude<keyof RecordEntry, 'key'>[];

const REQUIRED = 12;

// Every field of an entry has a place in a row: a field added to RecordEntry and not here fails to compile.
type Unplaced = Exclude<keyof RecordEntry, 'key' | (typeof ROW_FIELDS)[number]>;
const everyFieldPlaced: [Unplaced] extends [never] ? true : never = true;
void everyFieldPlaced;

// Plain msgpack (no records: a row is an array). Rows hold what entries hold: strings, numbers,
// booleans, string lists and the asset object.
const rowPackr = new Packr({ useRecords: false, variableMapSize: true });

/** Entries as rows, appended one by one into a buffer that grows by doubling. */
export class RowWriter {
  private bytes: Buffer;
  private used = 0;
  private readonly ends: number[] = [];

  /** sizeHint: the bytes the last snapshot's rows took (one buffer of about the right size, not a series of copies) */
  constructor(sizeHint = 0) {
    this.bytes = Buffer.allocUnsafeSlow(Math.max(64 * 1024, Math.ceil(sizeHint * 1.1)));
  }

  /** `shared`: the entry with its repeated strings already made indices (see the records' mapShared). */
  add(shared: Record<string, unknown>): void {
    const row = new Array<unknown>(ROW_FIELDS.length);
    let length = REQUIRED;
    for (let f = 0; f < ROW_FIELDS.length; f++) {
      const v = shared[ROW_FIELDS[f] as string];
      row[f] = v;
      if (v !== undefined && f >= REQUIRED) length = f + 1;
    }
    row.length = length;
    const packed = rowPackr.pack(row);
    if (this.used + packed.length > this.bytes.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(this.bytes.length * 2, this.used + packed.length));
      grown.set(this.bytes.subarray(0, this.used));
      this.bytes = grown;
    }
    this.bytes.set(packed, this.used);
    this.used += packed.length;
    this.ends.push(this.used);
  }

  finish(): { rows: Uint8Array; ends: Uint32Array } {
    return { rows: this.bytes.subarray(0, this.used), ends: Uint32Array.from(this.ends) };
  }
}

/** Rows as a load found them: `entry(i)` unpacks row i. */
export class PackedRows {
  constructor(
    private readonly rows: Uint8Array,
    private readonly ends: Uint32Array,
  ) {
    if (ends.length > 0 && (ends[ends.length - 1] as number) > rows.length) throw new Error('records snapshot: rows end past their bytes');
  }

  get count(): number {
    return this.ends.length;
  }

  /**
   * Row i as an entry object whose repeated strings are still indices (the caller maps them back).
   * Named fields first, in one order, so entries share their hidden classes.
   */
  entry(key: string, i: number): Record<string, unknown> {
    const start = i === 0 ? 0 : (this.ends[i - 1] as number);
    const row = rowPackr.unpack(this.rows.subarray(start, this.ends[i] as number)) as unknown[];
    const e: Record<string, unknown> = {
      key,
      ns: row[0],
      layer: row[1],
      id: row[2],
      title: row[3],
      text: row[4],
      occurred_at: row[5],
      seq: row[6],
      terms: row[7],
      entities: row[8],
      tags: row[9],
      content_fp: row[10],
      status: row[11],
    };
    for (let f = REQUIRED; f < row.length; f++) if (row[f] !== undefined) e[ROW_FIELDS[f] as string] = row[f];
    return e;
  }
}
