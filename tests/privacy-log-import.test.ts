// `kioku log import` and secrets (issue 33, PV): a chain is imported byte for byte, so a frame
// holding a credential (a log written before redaction, or by a writer without the guard) cannot be
// redacted without changing its hash and every hash after it. The import reads every frame first
// and refuses such an export before writing anything, naming the record, field and kind but never
// the value; --keep-secrets imports it as it is. A redacted export imports as before. Real LevelDB
// stores and real CLI processes.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openLog } from '../src/log/index.js';
import { memoryEvent, runCli, tempDir } from './helpers.js';

const SECRET = 'ghp_Zr8vQ2mXc4Lp9Tn6Wb1Ks7Hd3Fg5Jy0AeQw1';
const dir = tempDir('kioku-log-import-');
afterAll(() => dir.cleanup());

describe('kioku log import of a chain holding a secret', () => {
  it('is refused before anything is written, and imported as it is with --keep-secrets', async () => {
    const source = join(dir.path, 'source');
    // written below the store's guards: as a log from before redaction holds it
    const log = await openLog(source);
    await log.append(memoryEvent('m1', 'the build reads CONFIG from the share'));
    await log.append(memoryEvent('m2', `the deploy token is ${SECRET}`));
    await log.close();
    const out = join(dir.path, 'export.kchain');
    expect((await runCli(['log', 'export', '--data', source, '--out', out, '--json'])).json).toMatchObject({ ok: true });

    const target = join(dir.path, 'target');
    const refused = await runCli(['log', 'import', out, '--data', target, '--json']);
    expect(refused.code).toBe(2);
    expect(refused.json).toMatchObject({ ok: false, error: { code: 'KIOKU_INPUT_INVALID' } });
    const message = String((refused.json?.['error'] as { message: string }).message);
    expect(message).toContain('record 2 (memory.written, text)');
    expect(message).toContain('github-token');
    expect(message).toContain('--keep-secrets');
    expect(refused.stdout + refused.stderr).not.toContain(SECRET);
    expect(existsSync(target) ? readdirSync(target).filter((f) => f === 'log') : []).toEqual([]);

    const kept = await runCli(['log', 'import', out, '--data', target, '--keep-secrets', '--json']);
    expect(kept.json).toMatchObject({ ok: true, head: { seq: 2 }, verified: true });
  }, 120_000);
});
