// npm run chaos (tools/chaos/), its kill scenario at a small budget: a real `kioku serve` on a
// LevelDB dir SIGKILLed twice under two writers and restarted on the same dir. The harness's own
// JSON must show writes acknowledged, the kills felt by the writers, and nothing acknowledged
// lost, changed or duplicated; verify clean. The full figures are in README (npm run chaos).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { REPO } from './helpers.js';

function chaos(args: string[]): Promise<{ code: number; json: Record<string, unknown>; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'tools/chaos/run.ts'), ...args, '--json'], { cwd: REPO });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, json: JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>, stderr: err }));
  });
}

it('kill scenario: two SIGKILLs under two writers lose, change and duplicate no acknowledged write; verify clean', async () => {
  const run = await chaos(['--scenario', 'kill', '--rounds', '2', '--writers', '2', '--hold', '1']);
  const [kill] = run.json['scenarios'] as Record<string, unknown>[];
  expect(kill, run.stderr).toMatchObject({ scenario: 'kill', rounds: 2, writers: 2 });
  expect(kill?.['error'], run.stderr).toBeUndefined();
  expect(kill?.['acknowledged']).toBeGreaterThan(0);
  expect(kill?.['lost']).toBe(0);
  expect(kill?.['changed']).toBe(0);
  expect(kill?.['duplicates']).toBe(0);
  expect(kill?.['verify']).toMatchObject({ ok: true, exit: 0 });
  expect((kill?.['restart_to_ready_ms'] as { all: number[] }).all).toHaveLength(2);
  // the writers met the dead service (a refused or cut connection), so the kills happened under load
  const refusals = kill?.['refusals'] as Record<string, number>;
  expect((refusals['refused'] ?? 0) + (refusals['reset'] ?? 0)).toBeGreaterThan(0);
  expect(run.json['ok']).toBe(true);
  expect(run.code).toBe(0);
}, 90_000);
