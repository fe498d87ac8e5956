// Shared CLI plumbing: exit codes, JSON-last-line output, progress bars, errors.
import { SingleBar, Presets } from 'cli-progress';
import { KiokuError, isKiokuError } from '../src/errors.js';

/** architecture.md §cli: 0 success, 1 the check found a problem, 2 usage or I/O error. */
export const EXIT = { ok: 0, problem: 1, usage: 2 } as const;

export class CliExit extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
  }
}

export interface OutputOptions {
  json?: boolean;
}

/** Print a human report (unless --json), then — with --json — one JSON object as the last line. */
export function emit(options: OutputOptions, human: () => string, json: unknown): void {
  if (options.json) process.stdout.write(`${JSON.stringify(json, jsonReplacer)}\n`);
  else process.stdout.write(`${human()}\n`);
}

/** Bytes (vectors, blobs) print as base64, not as arrays of numbers. */
export function jsonReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Uint8Array) return { $bytes: Buffer.from(value).toString('base64'), length: value.length };
  if (value && typeof value === 'object' && (value as { type?: unknown }).type === 'Buffer' && Array.isArray((value as { data?: unknown }).data)) {
    const data = (value as { data: number[] }).data;
    return { $bytes: Buffer.from(data).toString('base64'), length: data.length };
  }
  return value;
}

/** A progress bar on an interactive stderr; silent otherwise (pipes, CI, --json). */
export function progressBar(label: string, options: OutputOptions): { update: (done: number, total: number) => void; stop: () => void } {
  if (options.json || !process.stderr.isTTY) return { update: () => undefined, stop: () => undefined };
  const bar = new SingleBar(
    { format: `${label} [{bar}] {percentage}% | {value}/{total} | {eta_formatted} left`, stream: process.stderr, hideCursor: true },
    Presets.shades_classic,
  );
  let started = false;
  return {
    update(done, total) {
      if (!started) {
        bar.start(Math.max(total, 1), 0);
        started = true;
      }
      bar.setTotal(Math.max(total, 1));
      bar.update(done);
    },
    stop() {
      if (started) bar.stop();
    },
  };
}

/** Report an error the way users should see it: code and message, no stack trace. */
export function reportError(err: unknown, options: OutputOptions): number {
  const code = isKiokuError(err) ? err.code : 'KIOKU_INTERNAL';
  const message = err instanceof Error ? err.message : String(err);
  if (options.json) process.stdout.write(`${JSON.stringify({ ok: false, error: { code, message } })}\n`);
  process.stderr.write(`kioku: ${message} [${code}]\n`);
  if (process.env['KIOKU_DEBUG'] && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  return EXIT.usage;
}

export function shortHash(hash: string): string {
  return `${hash.slice(0, 12)}…`;
}

/**
 * A number flag's value, checked at the edge with a message that names the flag and what was
 * given (issue 31: `--limit abc` said "expected number, received null"). `undefined` → `fallback`.
 */
export function numberFlag(
  flag: string,
  value: string | undefined,
  rule: { min?: number; max?: number; whole?: boolean; positive?: boolean },
  fallback: number,
): number;
export function numberFlag(
  flag: string,
  value: string | undefined,
  rule: { min?: number; max?: number; whole?: boolean; positive?: boolean },
): number | undefined;
export function numberFlag(
  flag: string,
  value: string | undefined,
  rule: { min?: number; max?: number; whole?: boolean; positive?: boolean },
  fallback?: number,
): number | undefined {
  if (value === undefined) return fallback;
  const whole = rule.whole ?? true;
  const n = value.trim() === '' ? NaN : Number(value);
  const range = rule.positive
    ? ' above 0'
    : rule.min !== undefined && rule.max !== undefined
      ? ` from ${rule.min} to ${rule.max}`
      : rule.min !== undefined
        ? ` of at least ${rule.min}`
        : '';
  const outside = (rule.positive && n <= 0) || (rule.min !== undefined && n < rule.min) || (rule.max !== undefined && n > rule.max);
  if (!Number.isFinite(n) || (whole && !Number.isInteger(n)) || outside)
    throw new KiokuError('KIOKU_USAGE', `--${flag} must be ${whole ? 'a whole number' : 'a number'}${range}, got '${value}'`, { details: { field: flag } });
  return n;
}
