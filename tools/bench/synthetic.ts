// Deterministic synthetic data shared by the benchmarks: Zipf-like English-ish text
// (one record in ten Chinese) and clustered unit vectors.
import { encodeVector, type AppendInput } from '../../src/events/index.js';
import { evidenceKey } from '../../src/knowledge/evidence.js';
export class Synthetic {
  private seed: number;
  readonly vocab: string[];
  readonly cjk = [...'数据库迁移发布回滚版本部署服务器客户报价会议预算安全密钥轮换团队计划上线监控告警日志缓存队列接口文档测试'];

  constructor(seed = 42, vocabulary = 6000) {
    this.seed = seed;
    this.vocab = Array.from({ length: vocabulary }, (_, i) => `w${i.toString(36)}${['al', 'er', 'on', 'ix', 'um'][i % 5]}`);
  }

  rand(): number {
    this.seed = (this.seed * 1664525 + 1013904223) >>> 0;
    return this.seed / 4294967296;
  }

  word(): string {
    return this.vocab[Math.floor(this.vocab.length * this.rand() ** 2.2)] as string;
  }

  text(i: number): string {
    return i % 10 === 9
      ? Array.from({ length: 24 }, () => this.cjk[Math.floor(this.rand() * this.cjk.length)]).join('')
      : Array.from({ length: 12 + Math.floor(this.rand() * 24) }, () => this.word()).join(' ');
  }

  centers(n: number, dim: number): Float32Array[] {
    return Array.from({ length: n }, () => Float32Array.from({ length: dim }, () => this.rand() * 2 - 1));
  }

  /** A unit vector near `center`. */
  near(center: Float32Array, amount: number): Float32Array {
    const v = Float32Array.from(center, (x) => x + (this.rand() * 2 - 1) * amount);
    let n = 0;
    for (const x of v) n += x * x;
    n = Math.sqrt(n);
    return v.map((x) => x / n);
  }
}

export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round((s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0) * 1000) / 1000;
}

/** The embedding.computed event a bench appends for memory `r<i>` (model "synthetic", text lane). */
export function syntheticEmbedding(i: number, vector: Float32Array): AppendInput {
  return {
    type: 'embedding.computed',
    actor: 'bench',
    data: {
      evidence_key: evidenceKey({ ns: 'private', layer: 'memory', id: `r${i}` }),
      model: 'synthetic',
      lane: 'text',
      dim: vector.length,
      vector: encodeVector(vector, 'f16'),
      encoding: 'f16',
    },
  };
}
