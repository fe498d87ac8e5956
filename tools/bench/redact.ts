// npm run bench:redact [-- --events 60000] [--json]: what the secret redaction step costs per
// append (issue 33). The log bench's event mix (turns, recall, verdicts, delivery, memories) is
// validated, then run through the write guard the store installs (src/privacy/redact-event.ts),
// without and with a secret in one event of every hundred; events per CPU second for each, and
// the CPU microseconds the guard adds per event. In memory: the durable append around it is bench:log.
// Prints a human table, then one JSON object as the last line.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { validateEvent, type AppendInput, type ValidatedEvent } from '../../src/events/index.js';
import { fingerprint } from '../../src/knowledge/index.js';
import { openVault, secretRedactor } from '../../src/privacy/index.js';
import { benchEvent } from './event-mix.js';

const { values } = parseArgs({ options: { events: { type: 'string', default: '60000' }, json: { type: 'boolean', default: false } } });
const events = Number(values.events);
if (!Number.isSafeInteger(events) || events < 100) {
  process.stderr.write('usage: bench:redact -- --events N (at least 100) [--json]\n');
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), 'kioku-bench-redact-'));
const redactor = secretRedactor(openVault(dir), fingerprint);

/** One event in a hundred carries a key (a memory that quotes one). */
function withSecrets(i: number): AppendInput {
  if (i % 100 !== 7) return benchEvent(i);
  return { type: 'memory.written', actor: 'bench', data: { id: `s${i}`, kind: 'fact', text: `deploy key for release ${i}: ghp_${String(i).padStart(36, 'x')}` } };
}

/** CPU milliseconds (user + system) of one run: on a shared 2-core machine wall time mostly measures the neighbours. */
function run(make: (i: number) => AppendInput, guard: boolean): number {
  const batch: ValidatedEvent[] = [];
  const started = process.cpuUsage();
  for (let i = 0; i < events; i++) {
    batch.push(validateEvent(make(i)));
    if (batch.length === 64) {
      if (guard) redactor.guard(batch);
      batch.length = 0;
    }
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}

// warm up (the second mix's values then sit in the vault: later runs measure the detector, not
// fsync), then five interleaved runs of each, the median (2-core machines shared are noisy)
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
run(benchEvent, true);
run(withSecrets, true);
const times = { plain: [] as number[], guarded: [] as number[], secretsPlain: [] as number[], secretsGuarded: [] as number[] };
for (let r = 0; r < 5; r++) {
  times.plain.push(run(benchEvent, false));
  times.guarded.push(run(benchEvent, true));
  times.secretsPlain.push(run(withSecrets, false));
  times.secretsGuarded.push(run(withSecrets, true));
}
const [plain, guarded, secretsPlain, secretsGuarded] = [times.plain, times.guarded, times.secretsPlain, times.secretsGuarded].map(median) as [number, number, number, number];
rmSync(dir, { recursive: true, force: true });

const perSec = (ms: number): number => Math.round((events / ms) * 1000);
const addedUs = (a: number, b: number): number => Math.round(((b - a) / events) * 1e6) / 1000;
const report = {
  events,
  validate_per_s: perSec(plain),
  validate_and_redact_per_s: perSec(guarded),
  redact_us_per_event: addedUs(plain, guarded),
  with_1pct_secrets: { validate_per_s: perSec(secretsPlain), validate_and_redact_per_s: perSec(secretsGuarded), redact_us_per_event: addedUs(secretsPlain, secretsGuarded) },
};
if (!values.json) {
  console.log(`events ${events} (the bench:log mix, batches of 64)`);
  console.log(`validate only          ${report.validate_per_s} per CPU second`);
  console.log(`validate + redaction   ${report.validate_and_redact_per_s} per CPU second  (+${report.redact_us_per_event} µs CPU per event)`);
  console.log(`1% with a secret       ${report.with_1pct_secrets.validate_and_redact_per_s} per CPU second  (+${report.with_1pct_secrets.redact_us_per_event} µs CPU per event; a new secret adds one fsync of the vault)`);
}
console.log(JSON.stringify(report));
