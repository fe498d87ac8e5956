// The event-store contract, public: every implementation of the port (./port.ts) runs this one
// suite, the way abstract-level's suite runs against every Level store — the three stores of
// this repository and any written outside it (import ./public.ts for the types and chain
// rules, and this module).
//
// It is a plain runner, not a suite of one test framework: each case is a named async
// function that throws (node:assert) when the store breaks the contract. `runLogContract`
// runs them all and returns a report (any framework, or none, can assert `report.ok`);
// `logContractCases` hands the cases out so a framework can register one test per case
// (tests/contracts/log.ts does it for vitest). Kioku ships no test framework, and passing
// one's describe/it/expect in would tie an outside store to that framework's API.
//
// The core cases need only the port and a `reopen`. What not every store has is declared in
// a manifest (`supports`): the optional methods of the port (health, holdsRole, exclusive,
// importChain), several logs over one stored chain (`shared`), and raw writes past the log
// (`writeRaw`, for records of a newer writer and for damage). One case checks the manifest
// against the store, so a capability is neither claimed nor left untested by mistake.
import { CAPABILITY_CASES } from './contract-cases/capabilities.js';
import { CORE_CASES } from './contract-cases/core.js';
import type { Capability, CaseDef, LogStoreFactory, StoreCapabilities } from './contract-cases/types.js';

export type { Capability, ContractStore, LogStoreFactory, StoreCapabilities } from './contract-cases/types.js';
export { assertMatches } from './contract-cases/support.js';

const CASES: readonly CaseDef[] = [...CORE_CASES, ...CAPABILITY_CASES];

export interface LogContractOptions {
  factory: LogStoreFactory;
  supports: StoreCapabilities;
}

export interface ContractCase {
  name: string;
  /** the capabilities the case needs (none: a core case) */
  needs: readonly Capability[];
  /** the manifest lacks `needs`: the case is not run */
  skipped: boolean;
  /** runs the case on a fresh store and removes it; throws when the store breaks the contract */
  run(): Promise<void>;
}

export interface LogContractReport {
  store: string;
  ok: boolean;
  passed: string[];
  failed: { name: string; error: string }[];
  skipped: { name: string; needs: readonly Capability[] }[];
}

/** Every case of the contract for this store, skipped ones marked. */
export function logContractCases(options: LogContractOptions): ContractCase[] {
  return CASES.map((c) => {
    const needs = c.needs ?? [];
    return {
      name: c.name,
      needs,
      skipped: needs.some((n) => options.supports[n] !== true),
      run: () => runCase(options, c.run),
    };
  });
}

/** Run the whole contract, one case after another, and report. */
export async function runLogContract(options: LogContractOptions): Promise<LogContractReport> {
  const report: LogContractReport = { store: options.factory.name, ok: true, passed: [], failed: [], skipped: [] };
  for (const c of logContractCases(options)) {
    if (c.skipped) {
      report.skipped.push({ name: c.name, needs: c.needs });
      continue;
    }
    try {
      await c.run();
      report.passed.push(c.name);
    } catch (err) {
      report.ok = false;
      report.failed.push({ name: c.name, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    }
  }
  return report;
}

async function runCase(options: LogContractOptions, body: CaseDef['run']): Promise<void> {
  const store = await options.factory.create();
  try {
    await body({ store, supports: options.supports, factory: options.factory });
  } finally {
    await store.cleanup();
  }
}
