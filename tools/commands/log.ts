// kioku log stats | show SEQ | export --out FILE | import FILE
import { rmSync, writeFileSync } from 'node:fs';
import { KiokuError } from '../../src/errors.js';
import type { PathOverrides } from '../../src/config.js';
import { resolvePaths } from '../../src/config.js';
import { openChainSource, openEventStore, storeDataKeys, verifySource } from '../../src/log/index.js';
import { exportChainToFile, readChainFile } from '../../src/log/transfer.js';
import { importKeys, readKeysFile, writeKeysFile } from '../../src/privacy/index.js';
import { EXIT, emit, jsonReplacer, shortHash, type OutputOptions } from '../cli-util.js';
import type { LogStatsAnswer } from '../../src/operations.js';
import { writeVerifiedChain } from './chain-pages.js';
import { firstSecretInChain, secretInChainError } from './log-import-scan.js';
import { connectKioku, storeOrService } from './connection.js';

export type LogFlags = OutputOptions & PathOverrides;

export async function logStatsCommand(flags: LogFlags): Promise<number> {
  const { kioku, via } = await connectKioku(flags);
  try {
    return printStats(flags, await kioku.logStats(), via);
  } finally {
    await kioku.close();
  }
}

function printStats(flags: LogFlags, { head, ...stats }: LogStatsAnswer, via: string): number {
  emit(
    flags,
    () => {
      const lines = [`${stats.total} events, ${stats.bytes} bytes, head ${head.seq} ${shortHash(head.hash)}${via === 'the store' ? '' : ` (through ${via})`}`];
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
    { head, ...stats, via },
  );
  return EXIT.ok;
}

export async function logShowCommand(seqArg: string, flags: LogFlags): Promise<number> {
  const seq = Number(seqArg);
  if (!Number.isSafeInteger(seq) || seq < 1) throw new KiokuError('KIOKU_USAGE', `SEQ must be a positive integer, got "${seqArg}"`);
  const show = (record: unknown): number => {
    emit(flags, () => JSON.stringify(record, jsonReplacer, 2), record);
    return EXIT.ok;
  };
  return storeOrService(
    flags,
    async () => {
      const log = await openEventStore(resolvePaths(flags), { createIfMissing: false });
      try {
        const record = await log.get(seq);
        if (!record) throw new KiokuError('KIOKU_RECORD_NOT_FOUND', `no record ${seq} (the log ends at ${log.head().seq})`, { details: { seq } });
        return show(record);
      } finally {
        await log.close();
      }
    },
    async ({ kioku }) => show(await kioku.logRecord(seq)),
  );
}

/** Verify the configured store, then write its whole chain, byte for byte, to a file. */
export async function logExportCommand(flags: LogFlags & { out?: string }): Promise<number> {
  if (!flags.out) throw new KiokuError('KIOKU_USAGE', '--out FILE is required (the export is binary)');
  const out = flags.out;
  try {
    writeFileSync(out, '', { mode: 0o600 });
  } catch (err) {
    throw new KiokuError('KIOKU_USAGE', `--out: cannot write ${out} (${(err as Error).message})`, { cause: err });
  }
  const started = performance.now();
  return storeOrService(
    flags,
    () => exportStoreItself(flags, out, started),
    async ({ kioku, via, library }) => {
      // the service's head now; the frames up to it are read in pages between its writes, and checked link by link as the file is read back
      const { head } = await kioku.logFrames({ from: 1, limit: 1 });
      const written = await writeVerifiedChain(kioku, head, out);
      // a service named by KIOKU_URL never hands out its data keys: its sealed texts travel sealed, unopenable
      const data_keys = library.remote ? 0 : writeKeysFile(await storeDataKeys(library.paths), keysFileOf(out));
      const result = { ok: true, file: out, head, records: written.records, bytes: written.bytes, data_keys, via, seconds: elapsed(started) };
      emit(flags, () => `exported ${written.records} records (head ${head.seq} ${shortHash(head.hash)}, verified) to ${out} through ${via}`, result);
      return EXIT.ok;
    },
  );
}

async function exportStoreItself(flags: LogFlags, out: string, started: number): Promise<number> {
  const paths = resolvePaths(flags);
  const chain = await openChainSource(paths);
  try {
    const report = await verifySource(chain.source());
    if (!report.ok) {
      rmSync(out, { force: true }); // the empty file the --out check left
      emit(flags, () => `not exported: the chain is damaged at ${report.damage?.seq}: ${report.damage?.detail}`, report);
      return EXIT.problem;
    }
    const written = await exportChainToFile(chain.source(), report.head, out);
    const data_keys = writeKeysFile(await storeDataKeys(paths), keysFileOf(out));
    const result = { ok: true, file: out, head: report.head, records: written.records, bytes: written.bytes, data_keys, via: 'the store', seconds: elapsed(started) };
    emit(flags, () => `exported ${written.records} records (head ${report.head.seq} ${shortHash(report.head.hash)}, verified) to ${out}`, result);
    return EXIT.ok;
  } finally {
    await chain.close();
  }
}

/** Read an export (every link and hash checked), write it verbatim into the empty configured store, verify that store. */
export async function logImportCommand(file: string, flags: LogFlags & { keepSecrets?: boolean }): Promise<number> {
  const paths = resolvePaths(flags);
  const started = performance.now();
  if (!flags.keepSecrets) {
    const found = await firstSecretInChain(file, keysFileOf(file));
    if (found) throw secretInChainError(file, found);
  }
  const { header, frames } = await readChainFile(file);
  const log = await openEventStore(paths);
  try {
    if (!log.importChain) throw new KiokuError('KIOKU_USAGE', `the ${log.kind} store cannot import a chain`);
    // a shared store takes the keys into its table in the import's transaction, so no node reads the chain without them
    const shared = log.dataKeys?.adopt(readKeysFile(keysFileOf(file)));
    const head = await log.importChain(frames);
    // the sealed texts open here with the keys exported beside the chain (a purged item's are not among them)
    const data_keys = shared ?? importKeys(keysFileOf(file), paths.dataDir);
    const report = await log.verify();
    const ok = report.ok && head.seq === header.head.seq && head.hash === header.head.hash && report.head.hash === header.head.hash;
    const result = { ok, file, store: log.kind, head, exported_head: header.head, verified: report.ok, checked: report.checked, data_keys, seconds: elapsed(started) };
    emit(
      flags,
      () =>
        ok
          ? `imported ${head.seq} records into the ${log.kind} store (head ${head.seq} ${shortHash(head.hash)}, verified)`
          : `import finished but the store does not verify to the exported head: ${JSON.stringify(report.damage ?? report.head)}`,
      result,
    );
    return ok ? EXIT.ok : EXIT.problem;
  } finally {
    await log.close();
  }
}

/** Where an export keeps the data keys of its sealed texts (issue 33): beside the chain file, mode 0600. */
function keysFileOf(chainFile: string): string {
  return `${chainFile}.keys`;
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started) / 1000;
}
