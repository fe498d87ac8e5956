// How an embedding.computed event stores its vector: little-endian float32 (v1 events, and
// writers that ask for it) or IEEE float16 (what Kioku's indexer writes since v2: half the
// log, and the decoded vectors rank the same — recall@10 against exact float32 search is
// measured by bench:index). The HNSW index holds float32 either way.

export const VECTOR_ENCODINGS = ['f32', 'f16'] as const;
export type VectorEncoding = (typeof VECTOR_ENCODINGS)[number];

export const BYTES_PER_DIM: Record<VectorEncoding, number> = { f32: 4, f16: 2 };

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** float32 → float16 bits, rounded to nearest, ties to even (as hardware converts). */
export function toHalf(x: number): number {
  f32[0] = x;
  const bits = u32[0] as number;
  const sign = (bits >>> 16) & 0x8000;
  const exp = (bits >>> 23) & 0xff;
  const mant = bits & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0); // infinity, NaN
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00; // too large: infinity
  if (e <= 0) {
    // subnormal half (or zero): the implicit bit shifts into the mantissa
    if (e < -10) return sign;
    const m = mant | 0x800000;
    const shift = 14 - e;
    let half = m >>> shift;
    const rest = m & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rest > mid || (rest === mid && half & 1)) half += 1;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  // a carry out of the mantissa moves to the next exponent, as it should (up to infinity)
  if (rest > 0x1000 || (rest === 0x1000 && half & 1)) half += 1;
  return sign | half;
}

/** float16 bits → number (exact: every half is a float32). */
export function fromHalf(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 0x1f) return m ? NaN : sign * Infinity;
  return sign * (1 + m / 1024) * 2 ** (e - 15);
}

let halfTable: Float32Array | undefined;
/** all 65,536 halves as float32, built on first decode (256 KB): decoding is one lookup per dimension */
function halves(): Float32Array {
  if (!halfTable) {
    halfTable = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) halfTable[h] = fromHalf(h);
  }
  return halfTable;
}

/** A vector as event bytes in the given encoding. */
export function encodeVector(vector: Float32Array | readonly number[], encoding: VectorEncoding = 'f32'): Uint8Array<ArrayBuffer> {
  const f = vector instanceof Float32Array ? vector : Float32Array.from(vector);
  if (encoding === 'f32') return new Uint8Array(f.buffer.slice(f.byteOffset, f.byteOffset + f.byteLength) as ArrayBuffer);
  const out = new Uint8Array(f.length * 2);
  for (let i = 0; i < f.length; i++) {
    const h = toHalf(f[i] as number);
    out[2 * i] = h & 0xff;
    out[2 * i + 1] = h >>> 8;
  }
  return out;
}

/** Event bytes → vector; throws when the byte length does not match `dim` in that encoding. */
export function decodeVector(bytes: Uint8Array, dim: number, encoding: VectorEncoding = 'f32'): Float32Array {
  const expected = dim * BYTES_PER_DIM[encoding];
  if (bytes.byteLength !== expected) throw new Error(`vector has ${bytes.byteLength} bytes, expected ${expected} (${dim} × ${encoding})`);
  if (encoding === 'f32') {
    const copy = new Uint8Array(bytes); // aligned copy
    return new Float32Array(copy.buffer, 0, dim);
  }
  const table = halves();
  const out = new Float32Array(dim);
  for (let i = 0; i < dim; i++) out[i] = table[(bytes[2 * i] as number) | ((bytes[2 * i + 1] as number) << 8)] as number;
  return out;
}
