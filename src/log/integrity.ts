// `kioku verify`: the chain walk plus the anchor checks, and writing a new anchor.
import { KiokuError } from '../errors.js';
import { readAckedHead, type AckedHead } from './acked-head.js';
import { anchorSignatureValid, appendAnchor, loadAnchorKey, loadOrCreateAnchorKey, readAnchors, signAnchor, type Anchor } from './anchors.js';
import type { LevelStore } from './level.js';
import { GENESIS_HASH_HEX } from './codec.js';
import { levelChainSource, verifySource, type ChainReport, type ChainSource, type Damage, type HashProbe, type VerifyChainOptions } from './verify.js';

export interface VerifyStoreOptions extends VerifyChainOptions {
  anchorsFile: string;
  anchorKeyFile: string;
  /** after a clean verify, sign the head and append it to the anchors file */
  writeAnchor?: boolean;
  /** the head the LevelDB log acknowledged (`<data>/log.acked`): a chain that ends before it is truncated */
  ackedHeadFile?: string;
}

export interface AnchorSummary {
  /** anchors found in the anchors file */
  total: number;
  /** anchors whose seq and hash were checked against the chain */
  checked: number;
  /** whether signatures were checked against the local key file (true) or only the keys the anchors carry (false) */
  trusted_key: boolean;
  written?: Anchor;
  key_created?: boolean;
}

export interface VerifyReport extends ChainReport {
  anchors: AnchorSummary;
  /** the head the store last acknowledged to a writer, when it records one */
  acknowledged?: AckedHead;
  warnings: string[];
}

/** The chain walk of a raw LevelDB store or of any store's chain source, plus the anchor checks. */
export async function verifyStore(store: LevelStore | ChainSource, options: VerifyStoreOptions): Promise<VerifyReport> {
  const anchors = readAnchors(options.anchorsFile);
  const key = loadAnchorKey(options.anchorKeyFile);
  const warnings: string[] = [];
  const summary: AnchorSummary = { total: anchors.length, checked: 0, trusted_key: key !== undefined };
  if (anchors.length > 0 && !key) {
    warnings.push(`anchor key ${options.anchorKeyFile} not found: signatures checked only against the keys the anchors carry`);
  }
  const acked = options.ackedHeadFile ? readAckedHead(options.ackedHeadFile) : { head: undefined, damaged: false };
  if (acked.damaged) warnings.push(`${options.ackedHeadFile} has a damaged slot: checked against the newest intact one`);
  const probe: HashProbe = new Map(anchors.map((a) => [a.seq, undefined]));
  if (acked.head) probe.set(acked.head.seq, undefined);
  const source = 'nextChunk' in store ? store : levelChainSource(store);
  const chain = await verifySource(source, { ...options, probe });
  const report: VerifyReport = { ...chain, anchors: summary, ...(acked.head ? { acknowledged: acked.head } : {}), warnings };
  if (!chain.ok) return report;

  for (const anchor of [...anchors].sort((a, b) => a.seq - b.seq)) {
    const damage = checkAnchor(anchor, chain, probe, key);
    if (damage) return { ...report, ok: false, damage: { seq: anchor.seq, kind: 'anchor_mismatch', detail: damage } };
    summary.checked += 1;
  }
  // after the anchors: a signed checkpoint names the damage more surely than the head file
  if (acked.head) {
    const damage = checkAcknowledged(acked.head, chain, probe, options.ackedHeadFile as string);
    if (damage) return { ...report, ok: false, damage };
  }

  if (options.writeAnchor) {
    if (chain.head.seq === 0) {
      warnings.push('the log is empty: no anchor written');
    } else {
      const signer = loadOrCreateAnchorKey(options.anchorKeyFile);
      const anchor = signAnchor(signer, chain.head);
      appendAnchor(options.anchorsFile, anchor);
      summary.written = anchor;
      summary.key_created = signer.created;
      summary.trusted_key = true;
    }
  }
  return report;
}

/** The chain must reach the acknowledged head and hold its hash there (LevelDB can drop a damaged WAL's records silently). */
function checkAcknowledged(acked: AckedHead, chain: ChainReport, probe: HashProbe, file: string): Damage | undefined {
  if (chain.head.seq < acked.seq) {
    return {
      seq: chain.head.seq + 1,
      kind: 'truncated',
      detail: `the log ends at ${chain.head.seq}, but ${acked.seq} was acknowledged (${file}): acknowledged records ${chain.head.seq + 1}..${acked.seq} are lost`,
    };
  }
  const actual = acked.seq === 0 ? GENESIS_HASH_HEX : probe.get(acked.seq);
  if (actual !== acked.hash)
    return { seq: acked.seq, kind: 'modified', detail: `the chain holds a different hash at ${acked.seq} than the one acknowledged (${file})` };
  return undefined;
}

function checkAnchor(anchor: Anchor, chain: ChainReport, probe: HashProbe, key: ReturnType<typeof loadAnchorKey>): string | undefined {
  if (!anchorSignatureValid(anchor, key)) {
    return key && anchor.key_id !== key.keyId ? `anchor was signed by key ${anchor.key_id}, not by the local key ${key.keyId}` : 'anchor signature is invalid';
  }
  if (anchor.seq > chain.head.seq) return `the log ends at ${chain.head.seq}, before the anchored seq ${anchor.seq}: the chain was cut or rewritten`;
  const actual = probe.get(anchor.seq);
  if (actual !== anchor.hash) return `the chain holds a different hash at ${anchor.seq} than the anchor signed: the log was rewritten after the anchor`;
  return undefined;
}

export function assertIntact(report: VerifyReport): void {
  if (!report.ok && report.damage) {
    throw new KiokuError('KIOKU_CHAIN_DAMAGED', `chain damaged at ${report.damage.seq} (${report.damage.kind}): ${report.damage.detail}`, {
      details: { ...report.damage },
    });
  }
}
