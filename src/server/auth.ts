// Tokens: none configured = anonymous single user on loopback; once any exists,
// every request needs one. A token fixes its namespace and scopes. Only hashes need
// be stored; comparison is constant-time on the hashes.
import { createHash, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { KiokuError } from '../errors.js';
import { namespaceSchema } from '../events/index.js';

import { ANONYMOUS, SCOPES, type Principal } from '../access.js';

export { ANONYMOUS, SCOPES, type Principal, type Scope } from '../access.js';

// The schemas are built per load (once at start-up), not at import, so that every rule in them
// runs as ordinary code: a mutation tester can then switch each one on and off (stryker-js #6209).
// Declared functions, not arrow constants: an arrow assigned at load is a mutant Stryker's per-test
// coverage cannot attribute to a test (it was a false survivor), a function body is covered by its calls.
function tokenEntrySchema() {
  return z
    .strictObject({
      name: z.string().min(1).max(200),
      /** the token itself (≥ 16 characters) — prefer token_sha256 */
      token: z
        .string()
        .min(16, 'tokens must be at least 16 characters')
        .refine((t) => t.trim() === t && !/\s/.test(t), 'a token may not contain whitespace (it could never be sent as a bearer token)')
        .optional(),
      /** hex sha256 of the token */
      token_sha256: z
        .string()
        .regex(/^[0-9a-f]{64}$/, 'token_sha256 must be 64 lowercase hex characters')
        .optional(),
      namespace: namespaceSchema,
      scopes: z.array(z.enum(SCOPES)).min(1),
    })
    .refine((t) => (t.token === undefined) !== (t.token_sha256 === undefined), 'give exactly one of token or token_sha256');
}

export function authFileSchema() {
  return z.strictObject({
    // an empty list would silently mean "anonymous": delete the file for that, say so with no tokens at all
    tokens: z.array(tokenEntrySchema()).min(1, 'the list is empty: that would start anonymous; remove the file to run without tokens').max(1_000),
  });
}

export interface AuthConfig {
  required: boolean;
  file: string;
  /** how many tokens are configured (0 = anonymous) */
  tokens: number;
  authenticate(header: string | undefined): Principal | undefined;
  /** whether a string is one of the configured tokens (a token pasted where it does not belong) */
  isToken?(value: string): boolean;
  /** the names of the tokens for a namespace: an org member is given only these (issue 34) */
  tokenNames?(namespace: string): string[];
}

function hash(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** The auth file a library's service reads: KIOKU_AUTH_FILE, else `<data dir>/auth.json` (a CLI acting in process reads the same). */
export function authFileOf(dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  return env['KIOKU_AUTH_FILE'] ?? join(dataDir, 'auth.json');
}

/** Load the auth file. Missing = no tokens. Anything malformed stops start-up with a clear message. */
export function loadAuth(file: string): AuthConfig {
  if (!existsSync(file)) return { required: false, file, tokens: 0, authenticate: () => ANONYMOUS };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (cause) {
    // Stryker disable next-line StringLiteral: the message's wording; the code and details are the API and are tested
    throw new KiokuError('KIOKU_AUTH_FILE_INVALID', `auth file ${file} is not valid JSON: ${(cause as Error).message}`, { cause, details: { file } });
  }
  const parsed = authFileSchema().safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // Stryker disable next-line StringLiteral: the message's wording; the code and details are the API and are tested
    throw new KiokuError('KIOKU_AUTH_FILE_INVALID', `auth file ${file}: ${issue?.path.join('.') || '(root)'}: ${issue?.message}`, { details: { file } });
  }
  const entries = parsed.data.tokens.map((t) => ({
    digest: t.token_sha256 ? Buffer.from(t.token_sha256, 'hex') : hash(t.token as string),
    principal: { name: t.name, namespace: t.namespace, scopes: new Set(t.scopes), anonymous: false } satisfies Principal,
  }));
  // the same token twice (as a token or a hash) would silently take the last entry's namespace and scopes
  const seen = new Map<string, string>();
  const names = new Set<string>();
  for (const e of entries) {
    const hex = e.digest.toString('hex');
    const other = seen.get(hex);
    if (other !== undefined)
      throw new KiokuError(
        'KIOKU_AUTH_FILE_INVALID',
        `auth file ${file}: tokens "${other}" and "${e.principal.name}" are the same token; each token must appear once`,
        {
          details: { file },
        },
      );
    seen.set(hex, e.principal.name);
    if (names.has(e.principal.name))
      throw new KiokuError(
        'KIOKU_AUTH_FILE_INVALID',
        `auth file ${file}: the name "${e.principal.name}" is used twice; names identify tokens in logs and rate limits`,
        {
          details: { file },
        },
      );
    names.add(e.principal.name);
  }
  return {
    required: true,
    file,
    tokens: entries.length,
    authenticate(header) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
      if (!m) return undefined;
      const digest = hash(m[1] as string);
      let found: Principal | undefined;
      // compare against every entry, in constant time per comparison
      for (const e of entries) if (timingSafeEqual(e.digest, digest)) found = e.principal;
      return found;
    },
    tokenNames(namespace) {
      return entries.filter((e) => e.principal.namespace === namespace).map((e) => e.principal.name);
    },
    isToken(value) {
      const digest = hash(value);
      let found = false;
      for (const e of entries) if (timingSafeEqual(e.digest, digest)) found = true;
      return found;
    },
  };
}

/** The start-up line's account of auth. */
export function describeAuth(auth: AuthConfig): string {
  return auth.required ? `auth: on (${auth.tokens} token${auth.tokens === 1 ? '' : 's'}, ${auth.file})` : 'auth: off (loopback, anonymous)';
}

export function tokenDigest(token: string): string {
  return hash(token).toString('hex');
}
