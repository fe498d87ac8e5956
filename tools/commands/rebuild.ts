// kioku rebuild [--projection NAME]: replay projections from genesis and snapshot them.
import type { PathOverrides } from '../../src/config.js';
import { openKioku } from '../../src/kioku.js';
import { EXIT, emit, progressBar, type OutputOptions } from '../cli-util.js';

export interface RebuildFlags extends OutputOptions, PathOverrides {
  projection?: string[];
}

export async function rebuildCommand(flags: RebuildFlags): Promise<number> {
  const store = await openKioku({ ...flags, createIfMissing: false });
  const bar = progressBar('rebuild', flags);
  try {
    const started = performance.now();
    const rebuilt = await store.projections.rebuild(flags.projection, bar.update);
    bar.stop();
    const seconds = (performance.now() - started) / 1000;
    const digests = store.projections.digests();
    const events = store.log.head().seq;
    const rows = rebuilt.map((s) => ({ name: s.name, seq: s.seq, digest: digests[s.name] }));
    emit(
      flags,
      () =>
        [
          `rebuilt ${rows.length} projection(s) over ${events} events in ${seconds.toFixed(2)} s`,
          ...rows.map((r) => `  ${r.name.padEnd(16)} seq ${r.seq}  digest ${r.digest}`),
        ].join('\n'),
      { ok: true, events, seconds: Math.round(seconds * 1000) / 1000, projections: rows },
    );
    return EXIT.ok;
  } finally {
    bar.stop();
    await store.close();
  }
}
