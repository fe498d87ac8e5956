// Moving a whole chain between stores (a laptop's LevelDB to a team's PostgreSQL, and back),
// byte for byte: the export file holds the stored frames exactly, after a header naming the
// head; import checks every link and hash as it reads, writes the frames verbatim into an
// empty store, and verifies the result against the header. See docs/deployment.md.
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { KiokuError } from '../errors.js';
import { GENESIS_HASH_HEX, GENESIS_PREV, HASH_BYTES, decodeBody, sha256, splitFrame } from './codec.js';
import type { ChainFrame } from './port.js';

export type { ChainFrame } from './port.js';
import type { ChainSource } from './verify.js';

export const CHAIN_FILE_MAGIC = 'KIOKU-CHAIN/1\n';

export interface ChainFileHeader {
  format: 1;
  head: { seq: number; hash: string };
  exported_at: string;
}

/** Hand `frames` to `write` in batches of `size`; the last frame (undefined when there were none). */
export async function inBatches(
  frames: AsyncIterable<ChainFrame>,
  write: (batch: ChainFrame[]) => Promise<void>,
  size = 1000,
): Promise<ChainFrame | undefined> {
  let batch: ChainFrame[] = [];
  let last: ChainFrame | undefined;
  for await (const frame of frames) {
    batch.push(frame);
    last = frame;
    if (batch.length >= size) {
      await write(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await write(batch);
  return last;
}

/** Write every frame of `source` up to `head` (checked by the caller with verify) to `out`. */
export async function exportChain(source: ChainSource, head: { seq: number; hash: string }, out: Writable): Promise<{ records: number; bytes: number }> {
  const header: ChainFileHeader = { format: 1, head, exported_at: new Date().toISOString() };
  await write(out, Buffer.from(`${CHAIN_FILE_MAGIC}${JSON.stringify(header)}\n`));
  let records = 0;
  let bytes = 0;
  for (;;) {
    const chunk = await source.nextChunk(1000);
    if (chunk.length === 0) break;
    for (const [, value] of chunk) {
      if (records >= head.seq) break;
      const len = Buffer.alloc(4);
      len.writeUInt32BE(value.length);
      await write(out, len);
      await write(out, Buffer.from(value.buffer, value.byteOffset, value.byteLength));
      records += 1;
      bytes += value.length;
    }
    if (records >= head.seq) break;
  }
  return { records, bytes };
}

async function write(out: Writable, buf: Buffer): Promise<void> {
  if (!out.write(buf)) await once(out, 'drain');
}

export async function exportChainToFile(
  source: ChainSource,
  head: { seq: number; hash: string },
  file: string | undefined,
): Promise<{ records: number; bytes: number }> {
  const out = file ? createWriteStream(file, { mode: 0o600 }) : process.stdout;
  const result = await exportChain(source, head, out);
  if (file) {
    out.end();
    await once(out, 'finish');
  }
  return result;
}

/**
 * Read an export: the header, then each frame with its link and hash checked against the one
 * before (a damaged or truncated file stops with KIOKU_CHAIN_DAMAGED; nothing may be imported
 * past the damage).
 */
export async function readChainFile(file: string): Promise<{ header: ChainFileHeader; frames: AsyncGenerator<ChainFrame> }> {
  const stream: Readable = createReadStream(file, { highWaterMark: 1 << 20 });
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let buf: Buffer = Buffer.alloc(0);
  const need = async (n: number): Promise<boolean> => {
    while (buf.length < n) {
      const next = await iterator.next();
      if (next.done) return false;
      buf = buf.length === 0 ? next.value : Buffer.concat([buf, next.value]);
    }
    return true;
  };
  const bad = (detail: string): KiokuError => new KiokuError('KIOKU_CHAIN_DAMAGED', `${file}: ${detail}`, { details: { file } });
  await need(CHAIN_FILE_MAGIC.length);
  if (buf.subarray(0, CHAIN_FILE_MAGIC.length).toString() !== CHAIN_FILE_MAGIC) {
    stream.destroy();
    throw new KiokuError('KIOKU_USAGE', `${file} is not a Kioku chain export (made by \`kioku log export\`)`);
  }
  buf = buf.subarray(CHAIN_FILE_MAGIC.length);
  let newline = -1;
  while ((newline = buf.indexOf(10)) < 0) if (!(await need(buf.length + 1))) throw bad('the header is cut short');
  let header: ChainFileHeader;
  try {
    header = JSON.parse(buf.subarray(0, newline).toString()) as ChainFileHeader;
  } catch {
    throw bad('the header is not JSON');
  }
  if (header.format !== 1 || !Number.isSafeInteger(header.head?.seq) || !/^[0-9a-f]{64}$/.test(header.head?.hash ?? ''))
    throw bad('the header has no valid head');
  buf = buf.subarray(newline + 1);

  async function* frames(): AsyncGenerator<ChainFrame> {
    let prev: Buffer = Buffer.from(GENESIS_PREV);
    for (let seq = 1; seq <= header.head.seq; seq++) {
      if (!(await need(4))) throw bad(`the file ends at record ${seq - 1}, the header says ${header.head.seq}`);
      const length = buf.readUInt32BE(0);
      if (!(await need(4 + length))) throw bad(`record ${seq} is cut short`);
      const frame = Buffer.from(buf.subarray(4, 4 + length));
      buf = buf.subarray(4 + length);
      const parts = splitFrame(frame);
      if (!parts) throw bad(`record ${seq} is not a frame`);
      if (!Buffer.from(parts.prev).equals(prev)) throw bad(`record ${seq} does not link to record ${seq - 1}`);
      const hash = sha256(frame.subarray(1 + HASH_BYTES));
      if (!hash.equals(parts.hash)) throw bad(`record ${seq}: the hash does not match its content`);
      const body = decodeBody(parts.body);
      if (body.seq !== seq) throw bad(`record ${seq} says it is record ${body.seq}`);
      yield { seq, type: body.type, ns: body.ns, ts: body.ts, frame, hash, prev, body: Buffer.from(parts.body) };
      prev = hash;
    }
    const end = header.head.seq === 0 ? GENESIS_HASH_HEX : prev.toString('hex');
    if (end !== header.head.hash) throw bad(`the last record's hash ${end.slice(0, 12)}… is not the head the header names`);
    if (await need(1)) throw bad('there are bytes after the last record');
    stream.destroy();
  }
  return { header, frames: frames() };
}
