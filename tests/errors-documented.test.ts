// docs/errors.md and the registry must name exactly the same codes (fastify's habit).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ERROR_REGISTRY, KiokuError, type ErrorCode } from '../src/errors.js';
import { REPO } from './helpers.js';

const doc = readFileSync(join(REPO, 'docs/errors.md'), 'utf8');
const documented = [...doc.matchAll(/^### (KIOKU_[A-Z_]+)\s*$/gm)].map((m) => m[1]);
const registered = Object.keys(ERROR_REGISTRY);

it('documents every registered error code', () => {
  expect(registered.filter((c) => !documented.includes(c))).toEqual([]);
});

it('documents no code that does not exist', () => {
  expect(documented.filter((c) => !registered.includes(c as string))).toEqual([]);
});

it('documents each code once, with its HTTP status', () => {
  expect(new Set(documented).size).toBe(documented.length);
  for (const code of registered as ErrorCode[]) {
    const section = doc.split(`### ${code}\n`)[1]?.split('\n### ')[0] ?? '';
    expect(section.trim().startsWith(`${ERROR_REGISTRY[code].status}.`), code).toBe(true);
  }
});

it('gives errors a stable code, a status and a serialisable shape', () => {
  const err = new KiokuError('KIOKU_LOG_CONFLICT', 'moved', { details: { seq: 3 } });
  expect(err).toBeInstanceOf(Error);
  expect(err.toJSON()).toEqual({ code: 'KIOKU_LOG_CONFLICT', message: 'moved', details: { seq: 3 } });
  expect(err.status).toBe(409);
});
