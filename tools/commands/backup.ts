// kioku backup DIR [--json]      — a consistent, verified copy of a library, live or not
// kioku restore DIR --data NEW   — that copy as a library again, verified, its projections rebuilt
// A backup is the chain up to a head every projection stands at (read through the library's
// service when one holds it, a page at a time between its writes, checked link by link as the
// file is read back), the projections' digests at that head, and the anchors (and anchor key)
// beside the log. Projections are not copied: a restore rebuilds them from the chain and checks
// that their digests equal the backed-up ones.
import { copyFileSync, createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { resolvePaths, type PathOverrides } from '../../src/config.js';
import { KiokuError } from '../../src/errors.js';
import { openKioku } from '../../src/kioku.js';
import { openEventStore, type Head } from '../../src/log/index.js';
import { readChainFile } from '../../src/log/transfer.js';
import { EXIT, emit, shortHash, type OutputOptions } from '../cli-util.js';
import { connectKioku } from '../server-client.js';
import { writeVerifiedChain } from './chain-pages.js';

export type BackupFlags = OutputOptions & PathOverrides;

export const MANIFEST = 'manifest.json';
const CHAIN_FILE = 'log.kchain';
const ANCHORS_FILE = 'anchors.jsonl';
const KEY_FILE = 'anchor-ed25519.pem';

export interface BackupManifest {
  kioku_backup: 1;
  created_at: string;
  head: Head;
  records: number;
  bytes: number;
  chain_file: string;
  chain_sha256: string;
  /** the projections' canonical digests at `head`: a restore's rebuild must give the same */
  digests: Record<string, string>;
  anchors?: string;
  anchor_key?: string;
}

async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

const bad = (message: string, dir: string): KiokuError => new KiokuError('KIOKU_BACKUP_INVALID', message, { details: { dir } });

export async function backupCommand(dir: string, flags: BackupFlags): Promise<number> {
  const started = performance.now();
  if (existsSync(dir) && readdirSync(dir).length > 0) throw new KiokuError('KIOKU_USAGE', `${dir} is not empty: a backup goes into a new or empty directory`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const { kioku, via, library } = await connectKioku(flags);
  let manifest: BackupManifest;
  try {
    const point = await kioku.backupPoint();
    const chainFile = join(dir, CHAIN_FILE);
    const written = await writeVerifiedChain(kioku, point.head, chainFile);
    manifest = {
      kioku_backup: 1,
      created_at: new Date().toISOString(),
      head: point.head,
      records: written.records,
      bytes: written.bytes,
      chain_file: CHAIN_FILE,
      chain_sha256: await sha256File(chainFile),
      digests: point.digests,
    };
  } finally {
    await kioku.close();
  }
  // the anchors and their key live beside the log, outside the chain: copied as they are now —
  // from this machine's data dir only (a service named by KIOKU_URL never hands out its key)
  const paths = library.paths;
  if (!library.remote && existsSync(paths.anchorsFile)) {
    copyFileSync(paths.anchorsFile, join(dir, ANCHORS_FILE));
    manifest.anchors = ANCHORS_FILE;
  }
  if (!library.remote && existsSync(paths.anchorKeyFile)) {
    copyFileSync(paths.anchorKeyFile, join(dir, KEY_FILE));
    manifest.anchor_key = KEY_FILE;
  }
  writeFileSync(join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  const seconds = Math.round(performance.now() - started) / 1000;
  emit(
    flags,
    () =>
      `backed up ${manifest.records} records (head ${manifest.head.seq} ${shortHash(manifest.head.hash)}, chain verified, ${Object.keys(manifest.digests).length} projection digests) from ${via} to ${dir}`,
    { ok: true, dir, via, seconds, ...manifest },
  );
  return EXIT.ok;
}

function readManifest(dir: string): BackupManifest {
  const file = join(dir, MANIFEST);
  if (!existsSync(file)) throw bad(`${dir} holds no ${MANIFEST}: not a backup made by kioku backup`, dir);
  let m: BackupManifest;
  try {
    m = JSON.parse(readFileSync(file, 'utf8')) as BackupManifest;
  } catch {
    throw bad(`${file} is not JSON`, dir);
  }
  if (m.kioku_backup !== 1 || !m.head || typeof m.chain_file !== 'string' || typeof m.digests !== 'object' || m.chain_file.includes('/'))
    throw bad(`${file} is not a backup manifest this Kioku reads`, dir);
  return m;
}

export async function restoreCommand(dir: string, flags: BackupFlags): Promise<number> {
  const started = performance.now();
  if (!flags.data && !flags.store) throw new KiokuError('KIOKU_USAGE', 'restore needs --data NEW (a new library; the backup is never restored over one)');
  const manifest = readManifest(dir);
  const chainFile = join(dir, manifest.chain_file);
  if (!existsSync(chainFile)) throw bad(`${chainFile} is missing`, dir);
  if ((await sha256File(chainFile)) !== manifest.chain_sha256) throw bad(`${chainFile} is not the file the backup wrote (its sha256 differs)`, dir);
  const paths = resolvePaths(flags);
  if (paths.store.kind === 'leveldb' && existsSync(paths.logDir) && readdirSync(paths.logDir).length > 0)
    throw bad(`${paths.dataDir} already holds a library: restore into a new --data directory`, dir);
  const { header, frames } = await readChainFile(chainFile);
  if (header.head.seq !== manifest.head.seq || header.head.hash !== manifest.head.hash) throw bad(`${chainFile} ends at another head than the manifest names`, dir);
  const log = await openEventStore(paths);
  try {
    if (!log.importChain) throw new KiokuError('KIOKU_USAGE', `the ${log.kind} store cannot import a chain`);
    await log.importChain(frames);
  } finally {
    await log.close();
  }
  for (const [name, target] of [
    [manifest.anchors, paths.anchorsFile],
    [manifest.anchor_key, paths.anchorKeyFile],
  ] as const) {
    if (!name || existsSync(target)) continue;
    mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
    copyFileSync(join(dir, name), target);
  }
  // the projections folded again from the restored chain, compared with the backup's
  const kioku = await openKioku({ ...flags, createIfMissing: false });
  let digests: Record<string, string>;
  let verify;
  try {
    await kioku.projections.rebuild();
    digests = kioku.projections.digests();
    verify = await kioku.verifyLog({});
  } finally {
    await kioku.close();
  }
  const differing = Object.keys(manifest.digests).filter((name) => digests[name] !== manifest.digests[name]);
  const ok = verify.ok && verify.head.seq === manifest.head.seq && verify.head.hash === manifest.head.hash && differing.length === 0;
  const seconds = Math.round(performance.now() - started) / 1000;
  emit(
    flags,
    () =>
      ok
        ? `restored ${manifest.records} records into ${paths.dataDir} (head ${manifest.head.seq} ${shortHash(manifest.head.hash)}, verified; ${Object.keys(manifest.digests).length} projection digests equal the backup's)`
        : `restore finished, but ${!verify.ok ? `the chain does not verify: ${verify.damage?.detail}` : differing.length ? `the rebuilt projections differ from the backup's: ${differing.join(', ')}` : 'the head differs from the backup'}`,
    { ok, dir, data: paths.dataDir, head: verify.head, verified: verify.ok, anchors: verify.anchors, digests_equal: differing.length === 0, differing, digests, seconds },
  );
  return ok ? EXIT.ok : EXIT.problem;
}
