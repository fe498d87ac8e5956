// Signed checkpoints ("anchors") of the chain head, kept outside the log.
//
// A hash chain only proves the log is consistent with itself: someone who rewrites
// it from genesis produces a chain that verifies. An anchor is (seq, head hash)
// signed with an Ed25519 key that never enters the log; if the chain later holds
// a different hash at an anchored seq, it was rewritten after the anchor.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { appendFileSync, chmodSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { KiokuError } from '../errors.js';

export const anchorSchema = z.strictObject({
  seq: z.number().int().positive(),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  ts: z.iso.datetime(),
  key_id: z.string().regex(/^[0-9a-f]{16}$/),
  public_key: z.string().min(1),
  sig: z.string().min(1),
});
export type Anchor = z.infer<typeof anchorSchema>;

export interface AnchorKey {
  publicKey: KeyObject;
  privateKey: KeyObject | undefined;
  keyId: string;
}

function keyIdOf(publicKey: KeyObject): string {
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 16);
}

function anchorMessage(a: Pick<Anchor, 'seq' | 'hash' | 'ts'>): Buffer {
  return Buffer.from(`kioku-anchor/1 seq=${a.seq} hash=${a.hash} ts=${a.ts}`, 'utf8');
}

/** Load the key file: a private key PEM (can sign and check) or a public key PEM (check only). */
export function loadAnchorKey(path: string): AnchorKey | undefined {
  if (!existsSync(path)) return undefined;
  const pem = readFileSync(path, 'utf8');
  try {
    if (pem.includes('PRIVATE KEY')) {
      const privateKey = createPrivateKey(pem);
      if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error(`expected an ed25519 key, found ${privateKey.asymmetricKeyType}`);
      const publicKey = createPublicKey(privateKey);
      return { publicKey, privateKey, keyId: keyIdOf(publicKey) };
    }
    const publicKey = createPublicKey(pem);
    if (publicKey.asymmetricKeyType !== 'ed25519') throw new Error(`expected an ed25519 key, found ${publicKey.asymmetricKeyType}`);
    return { publicKey, privateKey: undefined, keyId: keyIdOf(publicKey) };
  } catch (cause) {
    throw new KiokuError('KIOKU_ANCHOR_KEY_INVALID', `the anchor key file ${path} is not a usable Ed25519 PEM key`, { cause, details: { path } });
  }
}

/** Load the signing key, creating it (mode 0600) on first use. */
export function loadOrCreateAnchorKey(path: string): AnchorKey & { created: boolean } {
  const existing = loadAnchorKey(path);
  if (existing) {
    if (!existing.privateKey) {
      throw new KiokuError('KIOKU_ANCHOR_KEY_INVALID', `the anchor key file ${path} holds only a public key; writing an anchor needs the private key`, {
        details: { path },
      });
    }
    return { ...existing, created: false };
  }
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  writeFileSync(path, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
  chmodSync(path, 0o600);
  return { publicKey, privateKey, keyId: keyIdOf(publicKey), created: true };
}

export function signAnchor(key: AnchorKey, head: { seq: number; hash: string }, now = new Date()): Anchor {
  if (!key.privateKey) throw new KiokuError('KIOKU_ANCHOR_KEY_INVALID', 'signing an anchor needs the private key');
  const base = { seq: head.seq, hash: head.hash, ts: now.toISOString() };
  return {
    ...base,
    key_id: key.keyId,
    public_key: key.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    sig: sign(null, anchorMessage(base), key.privateKey).toString('base64'),
  };
}

/** Append one anchor line and fsync it: an acknowledged anchor survives a crash. */
export function appendAnchor(file: string, anchor: Anchor): void {
  mkdirSync(dirname(file), { recursive: true });
  appendFileSync(file, `${JSON.stringify(anchor)}\n`, { mode: 0o644 });
  const fd = openSync(file, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function readAnchors(file: string): Anchor[] {
  if (!existsSync(file)) return [];
  const anchors: Anchor[] = [];
  const lines = readFileSync(file, 'utf8').split('\n');
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (cause) {
      throw new KiokuError('KIOKU_ANCHOR_FILE_INVALID', `${file}:${i + 1} is not JSON`, { cause, details: { file, line: i + 1 } });
    }
    const result = anchorSchema.safeParse(parsed);
    if (!result.success) {
      throw new KiokuError('KIOKU_ANCHOR_FILE_INVALID', `${file}:${i + 1} is not an anchor: ${result.error.issues[0]?.message ?? 'invalid'}`, {
        details: { file, line: i + 1 },
      });
    }
    anchors.push(result.data);
  }
  return anchors;
}

/**
 * Is the anchor's signature valid? Checked against the trusted key when there is one;
 * without it only against the key the anchor carries (which a forger could replace).
 */
export function anchorSignatureValid(anchor: Anchor, trusted: AnchorKey | undefined): boolean {
  let publicKey: KeyObject;
  if (trusted) {
    if (anchor.key_id !== trusted.keyId) return false;
    publicKey = trusted.publicKey;
  } else {
    try {
      publicKey = createPublicKey({ key: Buffer.from(anchor.public_key, 'base64'), format: 'der', type: 'spki' });
    } catch {
      return false;
    }
  }
  try {
    return verify(null, anchorMessage(anchor), publicKey, Buffer.from(anchor.sig, 'base64'));
  } catch {
    return false;
  }
}
