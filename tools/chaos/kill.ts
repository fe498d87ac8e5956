// Scenario kill: one `kioku serve` on a LevelDB data dir, N writers posting memories with their
// own ids; the service is SIGKILLed R times at random moments and restarted on the same dir and
// port while the writers keep sending (an unacknowledged id again, same text). At the end every
// acknowledged id is read back through the API with its exact text, and `kioku verify` must pass.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readBack, writeMemory } from './http.js';
import { around, check, median, newLedger, sleep, startWriters } from './ledger.js';
import { figures, freePort, kill, progress, serve, terminate, verify, type Entry, type Service } from './service.js';

export interface KillOptions {
  rounds: number;
  writers: number;
  entry: Entry;
  /** writing between kills: each kill comes at random within half to one and a half times this, ms */
  holdMs: number;
}

export async function killScenario(options: KillOptions): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'kioku-chaos-kill-'));
  const data = join(dir, 'data');
  const port = await freePort();
  const started = performance.now();
  let service: Service | undefined;
  try {
    const first = await serve({ data, port, entry: options.entry });
    service = first.service;
    const ledger = newLedger();
    const writers = startWriters(options.writers, ledger, (_w, id, text) => writeMemory(first.service.url, id, text));
    const restartMs: number[] = [];
    for (let round = 1; round <= options.rounds; round++) {
      await sleep(around(options.holdMs));
      await kill(service);
      const before = ledger.acked.size;
      const next = await serve({ data, port, entry: options.entry });
      service = next.service;
      restartMs.push(next.readyMs);
      progress(`kill round ${round}/${options.rounds}: SIGKILLed, ready again in ${next.readyMs} ms; acknowledged ${before}`);
    }
    await sleep(1_000); // writes after the last restart
    await writers.stop();
    const result = check(ledger, await readBack(service.url));
    const stop = await terminate(service);
    const verified = await verify(options.entry, data);
    const f = figures('kill', result, ledger, verified, started);
    return {
      scenario: 'kill',
      ok: f.clean && stop.exit === 0,
      rounds: options.rounds,
      writers: options.writers,
      ...f.figures,
      restart_to_ready_ms: { median: median(restartMs), all: restartMs },
      final_stop: stop,
    };
  } finally {
    if (service) await kill(service);
    rmSync(dir, { recursive: true, force: true });
  }
}
