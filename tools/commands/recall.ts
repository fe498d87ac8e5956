// kioku recall "QUERY" [--ns NS] [--limit N] [--json]   — the same core as HTTP and MCP
// kioku report cold [--ns NS] [--min-considered N] [--json]
import type { PathOverrides } from '../../src/config.js';
import { KiokuError } from '../../src/errors.js';
import { openKioku } from '../../src/kioku.js';
import { createRecallCore, recall } from '../../src/recall/index.js';
import type { UsageProjection } from '../../projections/index.js';
import { EXIT, emit, type OutputOptions } from '../cli-util.js';

export interface RecallFlags extends OutputOptions, PathOverrides {
  ns?: string;
  limit?: string;
}

export async function recallCommand(query: string, flags: RecallFlags): Promise<number> {
  const limit = flags.limit === undefined ? 10 : Number(flags.limit);
  const store = await openKioku({ ...flags, createIfMissing: false });
  const core = createRecallCore(store);
  try {
    const packet = await recall(core, { query, limit, ...(flags.ns ? { namespace: flags.ns } : {}) }, { actor: 'cli' });
    emit(
      flags,
      () => {
        const lines = [`${packet.retrieval_mode} · judge ${packet.judge.status} · ${packet.records.length} record(s) · ${packet.timings['total_ms']} ms${packet.degraded ? ' · DEGRADED' : ''}`];
        for (const d of packet.delivery) lines.push(`→ delivered [${d.layer}] ${d.title} (verdict ${d.verdict})`);
        packet.records.forEach((r, i) => lines.push(`${String(i + 1).padStart(2)}. ${r.evidence_key}  ${r.title.slice(0, 70)}  score ${r.score}${r.why.verdict != null ? ` verdict ${r.why.verdict}` : ''}${r.why.held_back ? ` (${r.why.held_back})` : ''}`));
        for (const w of packet.warnings) lines.push(`warning: ${w}`);
        return lines.join('\n');
      },
      packet,
    );
    return EXIT.ok;
  } finally {
    await core.close();
    await store.close();
  }
}

export interface ColdFlags extends OutputOptions, PathOverrides {
  ns?: string;
  minConsidered?: string;
}

export async function coldReportCommand(flags: ColdFlags): Promise<number> {
  const min = flags.minConsidered === undefined ? 5 : Number(flags.minConsidered);
  if (!Number.isSafeInteger(min) || min < 1) throw new KiokuError('KIOKU_USAGE', '--min-considered must be a positive integer');
  const store = await openKioku({ ...flags, createIfMissing: false });
  try {
    const ns = flags.ns ?? 'private';
    const cold = store.projections.get<UsageProjection>('usage').cold(ns, min);
    emit(
      flags,
      () => [`evidence considered ≥ ${min} times and never judged relevant in ${ns}: ${cold.length}`, ...cold.slice(0, 50).map((c) => `  ${c.key}  considered ${c.considered}, judged ${c.judged}, returned ${c.returned}`)].join('\n'),
      { namespace: ns, min_considered: min, basis: 'usage counters from recall.performed and verdict.recorded events', items: cold },
    );
    return EXIT.ok;
  } finally {
    await store.close();
  }
}
