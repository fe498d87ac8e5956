// Tokens: none configured = anonymous single user on loopback; once any exists,
// every request needs one. A token fixes its namespace and scopes. Only hashes need
// be stored; comparison is constant-time on the hashes.
import { createHash, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { KiokuError } from '../errors.js';
import { namespaceSchema } from '../events/index.js';

export const SCOPES = ['memory:read', 'memory:write'] as const;
export type Scope = (typeof SCOPES)[number];

const tokenEntry = z
  .strictObject({
    name: z.string().min(1).max(200),
    /** the token itself (≥ 16 characters) — prefer token_sha256 */
    token: z.string().min(16, 'tokens must be at least 16 characters').optional(),
    /** hex sha256 of the token */
    token_sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/, 'token_sha256 must be 64 lowercase hex characters')
      .optional(),
    namespace: namespaceSchema,
    scopes: z.array(z.enum(SCOPES)).min(1),
  })
  .refine((t) => (t.token === undefined) !== (t.token_sha256 === undefined), 'give exactly one of token or token_sha256');

export const authFileSchema = z.strictObject({ tokens: z.array(tokenEntry).max(1_000) });

export interface Principal {
  name: string;
  namespace: string;
  scopes: ReadonlySet<Scope>;
  anonymous: boolean;
}

export interface AuthConfig {
  required: boolean;
  file: string;
  authenticate(header: string | undefined): Principal | undefined;
}

const hash = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

export const ANONYMOUS: Principal = { name: 'anonymous', namespace: 'private', scopes: new Set(SCOPES), anonymous: true };

/** Load the auth file. Missing = no tokens. Anything malformed stops start-up with a clear message. */
export function loadAuth(file: string): AuthConfig {
  if (!existsSync(file)) return { required: false, file, authenticate: () => ANONYMOUS };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (cause) {
    throw new KiokuError('KIOKU_AUTH_FILE_INVALID', `auth file ${file} is not valid JSON: ${(cause as Error).message}`, { cause, details: { file } });
  }
  const parsed = authFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new KiokuError('KIOKU_AUTH_FILE_INVALID', `auth file ${file}: ${issue?.path.join('.') || '(root)'}: ${issue?.message}`, { details: { file } });
  }
  const entries = parsed.data.tokens.map((t) => ({
    digest: t.token_sha256 ? Buffer.from(t.token_sha256, 'hex') : hash(t.token as string),
    principal: { name: t.name, namespace: t.namespace, scopes: new Set(t.scopes), anonymous: false } satisfies Principal,
  }));
  if (entries.length === 0) return { required: false, file, authenticate: () => ANONYMOUS };
  return {
    required: true,
    file,
    authenticate(header) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
      if (!m) return undefined;
      const digest = hash(m[1] as string);
      let found: Principal | undefined;
      // compare against every entry, in constant time per comparison
      for (const e of entries) if (timingSafeEqual(e.digest, digest)) found = e.principal;
      return found;
    },
  };
}

export function tokenDigest(token: string): string {
  return hash(token).toString('hex');
}
