// Byte layout of one log record, and the chain hash.
//
//   value = [format:1][hash:32][prev:32][body:N]
//   body  = msgpack({seq, ts, type, v, ns, actor, data})   (the exact bytes hashed)
//   hash  = sha256(prev ‖ body)
//
// prev sits right before body so the hashed bytes are one contiguous slice: no copy
// on write or verify.
import { hash as oneShotHash } from 'node:crypto';
import { Packr } from 'msgpackr';
import type { Envelope } from '../events/index.js';

export const FRAME_FORMAT = 1;
export const HASH_BYTES = 32;
export const HEADER_BYTES = 1 + HASH_BYTES + HASH_BYTES;
export const GENESIS_PREV = new Uint8Array(HASH_BYTES);
export const GENESIS_HASH_HEX = Buffer.from(GENESIS_PREV).toString('hex');

// No records extension and no shared structures: every body must decode on its own,
// in any process, forever.
const packr = new Packr({ useRecords: false, moreTypes: false });

/** Width of the zero-padded decimal key: sorts numerically and reads well in `ldb` dumps. */
export const SEQ_KEY_WIDTH = 16;

export function seqKey(seq: number): string {
  return String(seq).padStart(SEQ_KEY_WIDTH, '0');
}

export function parseSeqKey(key: string): number | undefined {
  if (key.length !== SEQ_KEY_WIDTH || !/^\d+$/.test(key)) return undefined;
  const n = Number(key);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

export function encodeBody(envelope: Envelope): Uint8Array {
  // Fixed field order: seq first, so verify can peek it without a full decode (peekSeq).
  return packr.pack({
    seq: envelope.seq,
    ts: envelope.ts,
    type: envelope.type,
    v: envelope.v,
    ns: envelope.ns,
    actor: envelope.actor,
    data: envelope.data,
  });
}

export function decodeBody(body: Uint8Array): Envelope {
  return packr.unpack(body) as Envelope;
}

// crypto.hash (Node ≥ 20.12) is ~1.7× faster than createHash for one-shot digests of small records.
export function sha256(bytes: Uint8Array): Buffer {
  return oneShotHash('sha256', bytes, 'buffer');
}

export function encodeFrame(prev: Uint8Array, body: Uint8Array): { frame: Buffer; hash: Buffer } {
  const frame = Buffer.allocUnsafe(HEADER_BYTES + body.length);
  frame[0] = FRAME_FORMAT;
  frame.set(prev, 1 + HASH_BYTES);
  frame.set(body, HEADER_BYTES);
  const hash = sha256(frame.subarray(1 + HASH_BYTES));
  frame.set(hash, 1);
  return { frame, hash };
}

export interface Frame {
  hash: Buffer;
  prev: Buffer;
  body: Buffer;
  /** prev ‖ body: the bytes the hash covers. */
  hashed: Buffer;
}

/** Split a stored value into its parts; undefined when it is not a frame at all. */
export function splitFrame(value: Uint8Array): Frame | undefined {
  if (value.length <= HEADER_BYTES || value[0] !== FRAME_FORMAT) return undefined;
  const buf = Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.length);
  return {
    hash: buf.subarray(1, 1 + HASH_BYTES),
    prev: buf.subarray(1 + HASH_BYTES, HEADER_BYTES),
    body: buf.subarray(HEADER_BYTES),
    hashed: buf.subarray(1 + HASH_BYTES),
  };
}

/**
 * Read `seq` from a body without decoding the rest (verify's hot path).
 * Falls back to a full decode when the body is not in the layout encodeBody writes.
 */
export function peekSeq(body: Uint8Array): number | undefined {
  // msgpackr writes objects as map16 (0xde 0x00 0x07); a fixmap (0x87) is accepted too.
  const at = body[0] === 0xde && body[1] === 0x00 && body[2] === 0x07 ? 3 : body[0] === 0x87 ? 1 : -1;
  // then fixstr(3) "seq"
  if (at > 0 && body[at] === 0xa3 && body[at + 1] === 0x73 && body[at + 2] === 0x65 && body[at + 3] === 0x71) {
    const tag = body[at + 4];
    const p = at + 5;
    if (tag !== undefined && body.length > p + 8) {
      if (tag < 0x80) return tag;
      const view = new DataView(body.buffer, body.byteOffset + p);
      if (tag === 0xcc) return view.getUint8(0);
      if (tag === 0xcd) return view.getUint16(0);
      if (tag === 0xce) return view.getUint32(0);
      if (tag === 0xcb) return view.getFloat64(0);
      if (tag === 0xcf) return Number(view.getBigUint64(0));
    }
  }
  try {
    const seq = (decodeBody(body) as { seq?: unknown }).seq;
    return typeof seq === 'number' ? seq : undefined;
  } catch {
    return undefined;
  }
}

/** Bytes a msgpack number takes after its tag byte (the encodings a body's seq and ts come in), or -1. */
function numberTail(tag: number): number {
  if (tag < 0x80) return 0;
  if (tag === 0xcc) return 1;
  if (tag === 0xcd) return 2;
  if (tag === 0xce || tag === 0xca) return 4;
  if (tag === 0xcf || tag === 0xcb) return 8;
  return -1;
}

/**
 * A frame's event type without decoding its body (a rebuild hands a worker only the types it
 * folds): encodeBody's fixed order puts it third, after seq and ts. Falls back to a full decode
 * when the body is not in that layout.
 */
export function peekType(frame: Uint8Array): string {
  const body = Buffer.from(frame.buffer, frame.byteOffset + HEADER_BYTES, frame.length - HEADER_BYTES);
  let at = body[0] === 0xde && body[1] === 0x00 && body[2] === 0x07 ? 3 : body[0] === 0x87 ? 1 : -1;
  // fixstr "seq", its number, fixstr "ts", its number, fixstr "type", then its string (fixstr or str8)
  if (at > 0 && body[at] === 0xa3 && body[at + 1] === 0x73 && body[at + 2] === 0x65 && body[at + 3] === 0x71) {
    const seqTail = numberTail(body[at + 4] ?? 0xc1);
    at += 5 + seqTail;
    if (seqTail >= 0 && body[at] === 0xa2 && body[at + 1] === 0x74 && body[at + 2] === 0x73) {
      const tsTail = numberTail(body[at + 3] ?? 0xc1);
      at += 4 + tsTail;
      if (tsTail >= 0 && body[at] === 0xa4 && body[at + 1] === 0x74 && body[at + 2] === 0x79 && body[at + 3] === 0x70 && body[at + 4] === 0x65) {
        const tag = body[at + 5] ?? 0;
        const [start, length] = tag >= 0xa0 && tag <= 0xbf ? [at + 6, tag - 0xa0] : tag === 0xd9 ? [at + 7, body[at + 6] ?? 0] : [0, -1];
        // an ASCII type, whole within the body (event types are)
        if (length > 0 && start + length <= body.length) {
          const type = body.toString('latin1', start, start + length);
          if (/^[\x20-\x7e]+$/.test(type)) return type;
        }
      }
    }
  }
  return decodeBody(body).type;
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('hex');
}
