// The public event-store contract (src/log/contract.ts) as vitest tests: one test per case,
// the cases a store's manifest does not support shown as skipped.
import { describe, it } from 'vitest';
import { logContractCases, type LogContractOptions } from '../../src/log/contract.js';

export function describeLogContract(options: LogContractOptions): void {
  describe(`event store contract on ${options.factory.name}`, () => {
    for (const c of logContractCases(options)) it.skipIf(c.skipped)(c.name, c.run);
  });
}
