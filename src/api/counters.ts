// Cheap counters that show a request is parsed once and its caller resolved once (issue 32): a
// test reads them before and after one request. Each module counts its own work (src/access.ts
// the resolutions, src/knowledge/validate.ts the parses); this adds them up in one place.
import { resolutionCounter } from '../access.js';
import { parseCounter } from '../knowledge/validate.js';

export interface ApiCounts {
  /** schema parses actually run (a value handed on parsed already is not parsed, and not counted) */
  parses: number;
  /** namespace resolutions: resolveCaller/resolveAccess at a door, or namespaceOf for a caller not resolved at one */
  resolutions: number;
}

export const apiCounters = {
  /** the counts since the process started (or the last reset) */
  read(): ApiCounts {
    return { parses: parseCounter.parses, resolutions: resolutionCounter.resolutions };
  },
  /** what `fn` did: counts around one call (the test of one request over HTTP or MCP) */
  async during<T>(fn: () => Promise<T>): Promise<{ result: T; counts: ApiCounts }> {
    const before = apiCounters.read();
    const result = await fn();
    const after = apiCounters.read();
    return { result, counts: { parses: after.parses - before.parses, resolutions: after.resolutions - before.resolutions } };
  },
};
