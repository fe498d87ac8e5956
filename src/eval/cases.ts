// Labelled cases and how one packet is scored against its case.
import { z } from 'zod';
import { parseEvidenceKey } from '../knowledge/evidence.js';
import type { RecallPacket } from '../recall/index.js';

export const evalCaseSchema = z.strictObject({
  id: z.string().min(1),
  query: z.string(),
  namespace: z.string().optional(),
  conversation: z.array(z.strictObject({ role: z.enum(['user', 'assistant']), content: z.string() })).optional(),
  need: z.string(),
  expected_delivery: z.enum(['deliver', 'quiet', 'any']),
  expected_ids: z.array(z.string()).default([]),
  expected_any_ids: z.array(z.array(z.string()).min(1)).default([]),
  allowed_ids: z.array(z.string()).default([]),
  forbidden_ids: z.array(z.string()).default([]),
  expected_mode: z.string().optional(),
  label_unit: z.enum(['document', 'evidence']).default('document'),
  /** the reference instant time phrases resolve against (from the case file's \`now\` unless the case has its own) */
  now: z.iso.datetime({ offset: true }).optional(),
});
export type EvalCase = z.output<typeof evalCaseSchema>;
export const caseFileSchema = z.strictObject({
  description: z.string().optional(),
  /** the reference instant of every case in the file: figures reproduce on any day */
  now: z.iso.datetime({ offset: true }).optional(),
  cases: z.array(evalCaseSchema).min(1),
});

export interface CaseResult {
  id: string;
  pass: boolean;
  failures: string[];
  expected_found: number;
  expected_total: number;
  delivered: string[];
  delivered_allowed: number;
  records: string[];
  /** per record: the judge's verdict and what delivery did with it — why a case failed, without a second run */
  judged: { key: string; verdict: number | null; delivered: boolean; held_back?: string }[];
  duplicates: number;
  retrieval_mode: string;
  judge_status: string;
  latency_ms: number;
  error?: string;
}

/** Score one packet against its case. */
export function scoreCase(c: EvalCase, packet: RecallPacket, latencyMs: number): CaseResult {
  const unit = (r: { id: string; evidence_key: string }): string => (c.label_unit === 'evidence' ? r.evidence_key : r.id);
  const records = packet.records.map(unit);
  const delivered = packet.delivery.map((d) =>
    c.label_unit === 'evidence' ? d.evidence_key : (packet.records.find((r) => r.evidence_key === d.evidence_key)?.id ?? idOf(d.evidence_key)),
  );
  // a labelled unit's best verdict (over its sections) and what delivery did with that section, for failure messages
  type Seen = { verdict: number; held?: string };
  const verdictOf = (id: string): Seen | undefined => {
    const seen: Seen[] = [];
    for (const r of packet.records)
      if (unit(r) === id && typeof r.why.verdict === 'number') seen.push({ verdict: r.why.verdict, ...(r.why.held_back ? { held: r.why.held_back } : {}) });
    packet.delivery.forEach((d, i) => delivered[i] === id && seen.push({ verdict: d.verdict }));
    return seen.sort((a, b) => b.verdict - a.verdict)[0];
  };
  const shown = (v: Seen | undefined): string => (v === undefined ? '' : ` (verdict ${v.verdict.toFixed(2)}${v.held ? `, held: ${v.held}` : ''})`);
  const failures: string[] = [];
  const found = c.expected_ids.filter((id) => records.includes(id) || delivered.includes(id));
  for (const id of c.expected_ids) if (!found.includes(id)) failures.push(`expected ${id} not recalled`);
  let anyFound = 0;
  for (const group of c.expected_any_ids) {
    if (group.some((id) => records.includes(id) || delivered.includes(id))) anyFound += 1;
    else failures.push(`none of ${group.join(' | ')} recalled`);
  }
  const allowed = new Set([...c.expected_ids, ...c.expected_any_ids.flat(), ...c.allowed_ids]);
  const deliveredAllowed = delivered.filter((d) => allowed.has(d)).length;
  for (const d of new Set(delivered)) if (!allowed.has(d)) failures.push(`delivered ${d}${shown(verdictOf(d))}, which is not allowed`);
  // forbidden = must not be handed to the agent; a record held back (quoted, superseded, old topic) is the packet explaining itself
  for (const f of c.forbidden_ids) if (delivered.includes(f)) failures.push(`forbidden ${f} was delivered`);
  // namespace isolation needs no label: nothing from another namespace may appear at all
  const namespace = c.namespace ?? 'private';
  for (const r of packet.records) if (r.provenance.ns !== namespace) failures.push(`record ${unit(r)} leaked from namespace ${r.provenance.ns}`);
  if (c.expected_delivery === 'deliver' && delivered.length === 0) {
    const best = [...allowed]
      .map((id) => ({ id, v: verdictOf(id) }))
      .filter((x) => x.v !== undefined)
      .sort((a, b) => (b.v?.verdict ?? 0) - (a.v?.verdict ?? 0))[0];
    failures.push(`expected a delivery, got none${best ? `; best allowed: ${best.id}${shown(best.v)}` : ''}`);
  }
  if (c.expected_delivery === 'quiet' && delivered.length > 0) failures.push(`expected quiet, delivered ${delivered.join(', ')}`);
  if (c.expected_mode && packet.retrieval_mode !== c.expected_mode) failures.push(`expected mode ${c.expected_mode}, got ${packet.retrieval_mode}`);
  const keys = packet.records.map((r) => r.evidence_key);
  const duplicates = keys.length - new Set(keys).size;
  if (duplicates) failures.push(`${duplicates} duplicate evidence key(s)`);
  return {
    id: c.id,
    pass: failures.length === 0,
    failures,
    expected_found: found.length + anyFound,
    expected_total: c.expected_ids.length + c.expected_any_ids.length,
    delivered,
    delivered_allowed: deliveredAllowed,
    records,
    judged: packet.records.map((r) => ({
      key: r.evidence_key,
      verdict: r.why.verdict ?? null,
      delivered: r.why.delivered,
      ...(r.why.held_back ? { held_back: r.why.held_back } : {}),
    })),
    duplicates,
    retrieval_mode: packet.retrieval_mode,
    judge_status: packet.judge.status,
    latency_ms: Math.round(latencyMs * 10) / 10,
  };
}

function idOf(key: string): string {
  return parseEvidenceKey(key)?.id ?? key;
}

export interface EvalSummary {
  cases: number;
  passed: number;
  failed: number;
  /** cases that reach the judge, and acknowledgement cases (skipped before any judge: they pass whatever the weights) */
  judged_cases: { cases: number; passed: number };
  acknowledgement_cases: { cases: number; passed: number };
  expected_evidence_recall: number;
  allowed_evidence_precision: number | null;
  no_answer_success: number | null;
  quiet_turn_success: number | null;
  duplicates: number;
  latency_ms: { p50: number; p95: number };
  retrieval_modes: Record<string, number>;
  judge_status: Record<string, number>;
  transport_failures: number;
}

export function summarise(cases: readonly EvalCase[], results: readonly CaseResult[]): EvalSummary {
  const byId = new Map(cases.map((c) => [c.id, c]));
  const sum = (f: (r: CaseResult) => number): number => results.reduce((s, r) => s + f(r), 0);
  const expectedTotal = sum((r) => r.expected_total);
  const deliveredTotal = sum((r) => r.delivered.length);
  const quiet = results.filter((r) => byId.get(r.id)?.expected_delivery === 'quiet');
  const noAnswer = quiet.filter((r) => (byId.get(r.id)?.expected_mode ?? '') !== 'skipped');
  const lat = results.map((r) => r.latency_ms).sort((a, b) => a - b);
  const count = (f: (r: CaseResult) => string): Record<string, number> =>
    results.reduce<Record<string, number>>((acc, r) => ((acc[f(r)] = (acc[f(r)] ?? 0) + 1), acc), {});
  const ratio = (n: number, d: number): number | null => (d === 0 ? null : Math.round((n / d) * 1000) / 1000);
  const isAck = (r: CaseResult): boolean => byId.get(r.id)?.expected_mode === 'skipped';
  const split = (f: (r: CaseResult) => boolean) => ({ cases: results.filter(f).length, passed: results.filter((r) => f(r) && r.pass).length });
  return {
    cases: results.length,
    passed: results.filter((r) => r.pass).length,
    failed: results.filter((r) => !r.pass).length,
    judged_cases: split((r) => !isAck(r)),
    acknowledgement_cases: split(isAck),
    expected_evidence_recall:
      ratio(
        sum((r) => r.expected_found),
        expectedTotal,
      ) ?? 1,
    allowed_evidence_precision: ratio(
      sum((r) => r.delivered_allowed),
      deliveredTotal,
    ),
    no_answer_success: ratio(noAnswer.filter((r) => r.delivered.length === 0).length, noAnswer.length),
    quiet_turn_success: ratio(quiet.filter((r) => r.delivered.length === 0).length, quiet.length),
    duplicates: sum((r) => r.duplicates),
    latency_ms: { p50: lat[Math.floor(lat.length / 2)] ?? 0, p95: lat[Math.floor(lat.length * 0.95)] ?? 0 },
    retrieval_modes: count((r) => r.retrieval_mode),
    judge_status: count((r) => r.judge_status),
    transport_failures: results.filter((r) => r.error).length,
  };
}
