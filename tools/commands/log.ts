// kioku log stats | kioku log show SEQ
import { KiokuError } from '../../src/errors.js';
import type { PathOverrides } from '../../src/config.js';
import { resolvePaths } from '../../src/config.js';
import { openKioku } from '../../src/kioku.js';
import { openEventStore } from '../../src/log/index.js';
import { EXIT, emit, jsonReplacer, shortHash, type OutputOptions } from '../cli-util.js';

export type LogFlags = OutputOptions & PathOverrides;

export async function logStatsCommand(flags: LogFlags): Promise<number> {
  const store = await openKioku({ ...flags, createIfMissing: false });
  try {
    const stats = store.projections.views.stats.current();
    const head = store.log.head();
    emit(
      flags,
      () => {
        const lines = [`${stats.total} events, ${stats.bytes} bytes, head ${head.seq} ${shortHash(head.hash)}`];
        if (stats.first && stats.last) lines.push(`span ${new Date(stats.first.ts).toISOString()} … ${new Date(stats.last.ts).toISOString()}`);
        lines.push('', 'by type:');
        for (const [type, t] of Object.entries(stats.by_type).sort((a, b) => b[1].count - a[1].count)) {
          lines.push(`  ${type.padEnd(24)} ${String(t.count).padStart(9)}  ${String(t.bytes).padStart(11)} B`);
        }
        lines.push('', 'by namespace:');
        for (const [ns, n] of Object.entries(stats.by_namespace).sort((a, b) => b[1].count - a[1].count)) {
          lines.push(`  ${ns.padEnd(24)} ${String(n.count).padStart(9)}  ${String(n.bytes).padStart(11)} B`);
        }
        return lines.join('\n');
      },
      { head, ...stats },
    );
    return EXIT.ok;
  } finally {
    await store.close();
  }
}

export async function logShowCommand(seqArg: string, flags: LogFlags): Promise<number> {
  const seq = Number(seqArg);
  if (!Number.isSafeInteger(seq) || seq < 1) throw new KiokuError('KIOKU_USAGE', `SEQ must be a positive integer, got "${seqArg}"`);
  const log = await openEventStore(resolvePaths(flags), { createIfMissing: false });
  try {
    const record = await log.get(seq);
    if (!record) throw new KiokuError('KIOKU_RECORD_NOT_FOUND', `no record ${seq} (the log ends at ${log.head().seq})`, { details: { seq } });
    emit(flags, () => JSON.stringify(record, jsonReplacer, 2), record);
    return EXIT.ok;
  } finally {
    await log.close();
  }
}
