// kioku lifecycle run [--ns NS] [--dry-run] [--json]
// The lifecycle job by hand (seed 004's decay, src/recall/lifecycle.ts): each ageing item's
// strength now, a histogram of them, and the state transitions it appends (or would, with
// --dry-run). `kioku serve` runs the same job on a timer.
import type { PathOverrides } from '../../src/config.js';
import type { LifecycleReport } from '../../src/recall/lifecycle.js';
import { EXIT, emit, type OutputOptions } from '../cli-util.js';
import { connectKioku } from './connection.js';

export interface LifecycleFlags extends OutputOptions, PathOverrides {
  ns?: string;
  dryRun?: boolean;
}

export async function lifecycleRunCommand(flags: LifecycleFlags): Promise<number> {
  const { kioku, via } = await connectKioku(flags);
  let report: LifecycleReport;
  try {
    report = await kioku.lifecycleRun({ dry_run: Boolean(flags.dryRun), ...(flags.ns ? { namespace: flags.ns } : {}) });
  } finally {
    await kioku.close();
  }
  emit(flags, () => render(report, via), report);
  return EXIT.ok;
}

function render(r: LifecycleReport, via: string): string {
  const moves = Object.entries(r.by_transition);
  return [
    `lifecycle of ${r.namespace ?? 'every namespace'} at ${r.at} (from ${via}): ${r.items} items that age, ${r.skipped_tombstoned} tombstoned skipped`,
    `states before: ${Object.entries(r.states).map(([s, n]) => `${s} ${n}`).join(', ') || 'none'}`,
    'strength:',
    ...r.histogram.map((h) => `  ${h.bin}  ${h.count}`),
    moves.length ? `transitions${r.dry_run ? ' (dry run: nothing appended)' : `: ${r.appended} appended`}:` : 'no transitions',
    ...moves.map(([label, n]) => `  ${label}  ${n}`),
    ...r.transitions.slice(0, 20).map((t) => `  ${t.evidence_key}  ${t.from} → ${t.to}  (${t.reason})`),
  ].join('\n');
}
