// kioku verify [--write-anchor]: walk the chain, check anchors, optionally sign the head.
import { isKiokuError } from '../../src/errors.js';
import { resolvePaths, type PathOverrides } from '../../src/config.js';
import { ackedHeadFile, openChainSource, verifyStore, type VerifyReport } from '../../src/log/index.js';
import { EXIT, emit, progressBar, shortHash, type OutputOptions } from '../cli-util.js';

export interface VerifyFlags extends OutputOptions, PathOverrides {
  writeAnchor?: boolean;
}

export async function verifyCommand(flags: VerifyFlags): Promise<number> {
  const paths = resolvePaths(flags);
  const started = performance.now();
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
  const seconds = (performance.now() - started) / 1000;
  emit(flags, () => describe(report, seconds, paths.anchorKeyFile), { ...report, seconds: round(seconds) });
  return report.ok ? EXIT.ok : EXIT.problem;
}

function describe(r: VerifyReport, seconds: number, keyFile: string): string {
  const lines: string[] = [];
  if (r.ok) {
    lines.push(`chain ok: ${r.checked} records, head ${r.head.seq} ${shortHash(r.head.hash)} (${seconds.toFixed(2)} s)`);
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
