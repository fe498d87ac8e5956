// The clock, from the environment: its own module so that light clients (MCP, the hook) need not load recall.
import { KiokuError } from '../errors.js';

/**
 * The clock recall resolves time phrases against ("last week", "九月那阵子"): the system
 * clock, or a fixed instant from KIOKU_CLOCK (ISO 8601) so that an evaluation or a replay
 * gives the same figures on any day.
 */
export function clockFromEnv(env: NodeJS.ProcessEnv = process.env): (() => Date) | undefined {
  const fixed = env['KIOKU_CLOCK'];
  if (fixed === undefined || fixed === '') return undefined;
  const at = Date.parse(fixed);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(fixed) || Number.isNaN(at))
    throw new KiokuError('KIOKU_USAGE', `KIOKU_CLOCK must be an ISO 8601 instant such as 2026-11-29T12:00:00Z (got "${fixed}")`, {
      details: { field: 'KIOKU_CLOCK' },
    });
  return () => new Date(at);
}
