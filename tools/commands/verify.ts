// kioku verify [--write-anchor]: walk the chain, check anchors, optionally sign the head.
import { isKiokuError, KiokuError } from '../../src/errors.js';
import { storeOrService } from './connection.js';
import { resolvePaths, type PathOverrides } from '../../src/config.js';
import { ackedHeadFile, openChainSource, verifyStore, type VerifyReport } from '../../src/log/index.js';
import { EXIT, emit, progressBar, shortHash, type OutputOptions } from '../cli-util.js';

export interface VerifyFlags extends OutputOptions, PathOverrides {
  writeAnchor?: boolean;
}

export async function verifyCommand(flags: VerifyFlags): Promise<number> {
  const started = performance.now();
  // while a service holds the store, it walks the chain up to its head now, in chunks between writes
  return storeOrService(
    flags,
    () => verifyStoreItself(flags, started),
    async ({ kioku, via }) => {
      if (flags.key || flags.anchors)
        throw new KiokuError('KIOKU_USAGE', `--key and --anchors name files of the store itself; ${via} holds it and uses the library's own (leave them out, or stop the service)`);
      const report = await kioku.verifyLog({ write_anchor: flags.writeAnchor ?? false });
      return finish(flags, report, started, `the library's anchor key`, via);
    },
  );
}

async function verifyStoreItself(flags: VerifyFlags, started: number): Promise<number> {
  const paths = resolvePaths(flags);
  let chain;
  try {
    chain = await openChainSource(paths);
  } catch (err) {
    // Damaged LevelDB files are a finding (exit 1), not a usage error.
    if (isKiokuError(err, 'KIOKU_STORE_UNREADABLE')) {
      const report = { ok: false, head: { seq: 0, hash: '' }, checked: 0, damage: { seq: 0, kind: 'unreadable', detail: err.message } };
      emit(flags, () => `chain UNREADABLE: ${err.message}`, report);
      return EXIT.problem;
    }
    throw err;
  }
  const bar = progressBar('verify', flags);
  let report: VerifyReport;
  try {
    report = await verifyStore(chain.source(), {
      anchorsFile: paths.anchorsFile,
      anchorKeyFile: paths.anchorKeyFile,
      writeAnchor: flags.writeAnchor ?? false,
      // a shared store's head is its table's; a LevelDB log records the head it acknowledged beside it
      ...(paths.store.kind === 'postgres' ? {} : { ackedHeadFile: ackedHeadFile(paths.dataDir) }),
      onProgress: bar.update,
    });
  } finally {
    bar.stop();
    await chain.close().catch(() => undefined);
  }
  if (chain.warning) report.warnings.unshift(chain.warning);
  return finish(flags, report, started, paths.anchorKeyFile, 'the store');
}

function finish(flags: VerifyFlags, report: VerifyReport, started: number, keyFile: string, via: string): number {
  const seconds = (performance.now() - started) / 1000;
  emit(flags, () => describe(report, seconds, keyFile, via), { ...report, via, seconds: round(seconds) });
  return report.ok ? EXIT.ok : EXIT.problem;
}

function describe(r: VerifyReport, seconds: number, keyFile: string, via: string): string {
  const lines: string[] = [];
  const where = via === 'the store' ? '' : `, through ${via}`;
  if (r.ok) {
    lines.push(`chain ok: ${r.checked} records, head ${r.head.seq} ${shortHash(r.head.hash)} (${seconds.toFixed(2)} s${where})`);
  } else if (r.damage) {
    lines.push(`chain DAMAGED at seq ${r.damage.seq}: ${r.damage.kind} — ${r.damage.detail}`);
    lines.push(`(${r.checked} records before it verified)`);
  }
  if (r.acknowledged) lines.push(`acknowledged head: ${r.acknowledged.seq} ${shortHash(r.acknowledged.hash)}`);
  const a = r.anchors;
  if (a.total === 0 && !a.written) lines.push('anchors: none (a chain rewritten from genesis would not be detected; see `kioku verify --write-anchor`)');
  else lines.push(`anchors: ${a.checked}/${a.total} checked${a.trusted_key ? '' : ' (no local key: signatures checked against embedded keys only)'}`);
  if (a.written) lines.push(`anchor written: seq ${a.written.seq} ${shortHash(a.written.hash)}${a.key_created ? ` (new key ${keyFile})` : ''}`);
  for (const w of r.warnings) lines.push(`warning: ${w}`);
  return lines.join('\n');
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
