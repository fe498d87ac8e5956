// The records snapshot's rows (format 3): entries packed as rows, ROWS_PER_CHUNK rows to a chunk,
// each chunk its own packed bytes (a msgpack bin in the snapshot: a view into the file when
// loaded). A load keeps them packed
// and unpacks an entry's chunk when the entry is first asked for (or when the warm-up reaches
// it): a million entries unpacked at once were 830 MB of JS heap and five to six seconds of a
// fourteen-second start-up. Chunks, not single rows: a pack call per row made the snapshot 1.5×
// slower in a cold process (a rebuild's), and 32 rows unpack in about 0.1 ms.
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
  'tombstone',
] as const satisfies readonly Exclude<keyof RecordEntry, 'key'>[];

const REQUIRED = 12;

// Every field of an entry has a place in a row: a field added to RecordEntry and not here fails to compile.
type Unplaced = Exclude<keyof RecordEntry, 'key' | (typeof ROW_FIELDS)[number]>;
const everyFieldPlaced: [Unplaced] extends [never] ? true : never = true;
void everyFieldPlaced;

// Plain msgpack (no records: a row is an array). Rows hold what entries hold: strings, numbers,
// booleans, string lists and the asset object.
const rowPackr = new Packr({ useRecords: false, variableMapSize: true });

export const ROWS_PER_CHUNK = 32;

/**
 * The entries' keys are packed in chunks too (packed-strings.ts: a million keys decoded at load
 * were a million strings for the start-up's young generation to promote; in chunks, the warm-up
 * decodes them).
 */
export const KEYS_PER_CHUNK = 4096;

/** Entries as rows, packed a chunk at a time (msgpackr's own buffers are kept: it never writes into one it returned). */
export class RowWriter {
  private readonly chunks: Uint8Array[] = [];
  private chunk: unknown[][] = [];

  /** `row`: an entry's fields in ROW_FIELDS order, absent ones undefined (left off at the end here). */
  add(row: unknown[]): void {
    if (row.length !== ROW_FIELDS.length) throw new Error(`records row: ${row.length} fields, expected ${ROW_FIELDS.length}`);
    let length = row.length;
    while (length > REQUIRED && row[length - 1] === undefined) length -= 1;
    row.length = length;
    this.chunk.push(row);
    if (this.chunk.length === ROWS_PER_CHUNK) this.flush();
  }

  private flush(): void {
    this.chunks.push(rowPackr.pack(this.chunk));
    this.chunk = [];
  }

  finish(): Uint8Array[] {
    if (this.chunk.length > 0) this.flush();
    return this.chunks;
  }
}

/** Rows as a load found them: `chunk(c)` unpacks chunk c (rows c × ROWS_PER_CHUNK onwards). */
export class PackedRows {
  constructor(
    private readonly chunks: readonly Uint8Array[],
    /** how many rows the chunks hold */
    readonly count: number,
  ) {
    if (chunks.length !== Math.ceil(count / ROWS_PER_CHUNK)) throw new Error(`records snapshot: ${count} keys for ${chunks.length} chunks of rows`);
    if (!chunks.every((c) => c instanceof Uint8Array)) throw new Error('records snapshot: a chunk of rows is not bytes');
  }

  /** Chunk c's rows (ROWS_PER_CHUNK of them, fewer in the last chunk). */
  chunk(c: number): unknown[][] {
    const rows = rowPackr.unpack(this.chunks[c] as Uint8Array) as unknown[][];
    const expected = Math.min(ROWS_PER_CHUNK, this.count - c * ROWS_PER_CHUNK);
    if (!Array.isArray(rows) || rows.length !== expected) throw new Error(`records snapshot: chunk ${c} holds ${rows?.length} rows, expected ${expected}`);
    return rows;
  }
}

/**
 * A row as an entry object whose repeated strings are still indices (the caller maps them back).
 * Named fields first, in one order, so entries share their hidden classes.
 */
export function entryOfRow(key: string, row: unknown[]): Record<string, unknown> {
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
