// The public event-store contract run the way a store written outside this repository runs
// it: the store (tests/contracts/array-store.ts) imports only src/log/public.ts, and this file
// only the contract's runner. A store with a flaw fails the cases that name the flaw.
import { describe, expect, it } from 'vitest';
import { logContractCases, runLogContract, type LogStoreFactory, type StoreCapabilities } from '../src/log/contract.js';
import { ArrayChain, ArrayEventStore, type Flaw } from './contracts/array-store.js';

function arrayFactory(flaw: Flaw = 'none'): LogStoreFactory {
  return {
    name: `array store (${flaw})`,
    async create() {
      const chain = new ArrayChain();
      let log = new ArrayEventStore(chain, flaw);
      return {
        log,
        async reopen() {
          await log.close();
          return (log = new ArrayEventStore(chain, flaw));
        },
        cleanup: () => log.close(),
      };
    },
  };
}

const SUPPORTS: StoreCapabilities = { importChain: true };

describe('the public event-store contract on a store written outside the repository', () => {
  it('passes every case its manifest covers, and skips the rest by name', async () => {
    const report = await runLogContract({ factory: arrayFactory(), supports: SUPPORTS });
    expect(report.failed).toEqual([]);
    expect(report.ok).toBe(true);
    const all = logContractCases({ factory: arrayFactory(), supports: SUPPORTS });
    expect(report.passed).toEqual(all.filter((c) => !c.skipped).map((c) => c.name));
    expect(report.passed).toContain('imports an exported chain into an empty store verbatim: the same head, frames and records, and it verifies');
    // every skipped case needs something the manifest does not declare
    expect(report.skipped.length).toBeGreaterThan(0);
    for (const s of report.skipped) expect(s.needs.some((n) => SUPPORTS[n] !== true)).toBe(true);
    expect(new Set(report.skipped.flatMap((s) => s.needs))).toEqual(new Set(['health', 'holdsRole', 'exclusive', 'shared', 'writeRaw']));
  });

  it('fails a store that ignores the expected head, naming the cases it breaks', async () => {
    const report = await runLogContract({ factory: arrayFactory('ignores-expected-head'), supports: SUPPORTS });
    expect(report.ok).toBe(false);
    expect(report.failed.map((f) => f.name)).toEqual([
      'refuses an append whose expected head moved, with a typed conflict, and writes nothing',
      'scopes an expected head to types: unrelated appends are no conflict, one of the types is',
      'lets exactly one of two writers that saw the same head win',
    ]);
    expect(report.failed[0]?.error).toMatch(/expected a rejection/);
  });

  it('fails a manifest that claims a capability the store lacks, or leaves out one it has', async () => {
    const claims = await runLogContract({ factory: arrayFactory(), supports: { ...SUPPORTS, health: true } });
    const leaves = await runLogContract({ factory: arrayFactory(), supports: {} });
    const manifest = 'declares in its manifest exactly the optional methods it has';
    expect(claims.failed.map((f) => f.name)).toContain(manifest);
    expect(claims.failed.find((f) => f.name === manifest)?.error).toMatch(/declares health but the store has none/);
    expect(leaves.failed.map((f) => f.name)).toEqual([manifest]);
    expect(leaves.failed[0]?.error).toMatch(/has importChain but the manifest does not declare it/);
  });
});
