// The scoring of the secret rules on a corpus (evals/privacy/corpus.json): a secret counts as found
// when every occurrence of it lies inside a finding; a finding that touches no listed secret is a
// false positive. Shared by `npm run eval:secrets` and tests/privacy-detect.test.ts.
import { findSecrets, type SecretFinding } from '../../src/privacy/index.js';

export interface CorpusCase {
  text: string;
  secrets: string[];
  note?: string;
}

export interface SecretsReport {
  cases: number;
  secrets: number;
  findings: number;
  precision: number;
  recall: number;
  false_positives: { case: number; kind: string; found: string; note?: string }[];
  false_negatives: { case: number; secret: string; note?: string }[];
  ms_per_case: number;
}

function occurrences(text: string, value: string): [number, number][] {
  const spans: [number, number][] = [];
  for (let at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + 1)) spans.push([at, at + value.length]);
  return spans;
}

const clip = (s: string): string => (s.length > 60 ? `${s.slice(0, 57)}...` : s);

export function scoreCorpus(cases: readonly CorpusCase[]): SecretsReport {
  let tp = 0;
  let good = 0;
  let findingsCount = 0;
  const fps: SecretsReport['false_positives'] = [];
  const fns: SecretsReport['false_negatives'] = [];
  const started = performance.now();
  for (const [i, c] of cases.entries()) {
    const findings: SecretFinding[] = findSecrets(c.text);
    findingsCount += findings.length;
    const spans = c.secrets.flatMap((s) => occurrences(c.text, s));
    for (const s of c.secrets) {
      const covered = occurrences(c.text, s).every(([a, b]) => findings.some((f) => f.start <= a && f.end >= b));
      if (covered && occurrences(c.text, s).length > 0) tp += 1;
      else fns.push({ case: i, secret: clip(s), ...(c.note ? { note: c.note } : {}) });
    }
    for (const f of findings) {
      if (spans.some(([a, b]) => f.start < b && a < f.end)) good += 1;
      else fps.push({ case: i, kind: f.kind, found: clip(f.value), ...(c.note ? { note: c.note } : {}) });
    }
  }
  const secrets = cases.reduce((n, c) => n + c.secrets.length, 0);
  return {
    cases: cases.length,
    secrets,
    findings: findingsCount,
    precision: findingsCount === 0 ? 1 : round(good / findingsCount),
    recall: secrets === 0 ? 1 : round(tp / secrets),
    false_positives: fps,
    false_negatives: fns,
    ms_per_case: round((performance.now() - started) / Math.max(1, cases.length)),
  };
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

