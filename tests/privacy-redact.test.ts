// The one redaction step (issue 33): every event appended through a store has the secrets of its
// text fields replaced before it is encoded, the values kept in the vault, and a secret.redacted
// event (never the value) beside it. Real LevelDB in a temp dir; the files are read back as bytes.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../src/events/index.js';
import { openKioku, type LocalKioku } from '../src/kioku.js';
import { runHook } from '../src/hook/run.js';
import { SecretVault, TEXT_FIELDS, vaultDir } from '../src/privacy/index.js';
import { tempDir } from './helpers.js';

const KEY = 'sk-proj-Zr8vQ2mXc4Lp9Tn6Wb1Ks7Hd3Fg5Jy0Ae';
const PASSWORD = 'Tr0ub4dor#3x';

/** Every byte of every file under `dir`, but the vault's. */
function filesUnder(dir: string, skip: string): Buffer[] {
  const out: Buffer[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (path === skip) continue;
    if (statSync(path).isDirectory()) out.push(...filesUnder(path, skip));
    else out.push(readFileSync(path));
  }
  return out;
}

describe('redaction before append', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function open(): Promise<{ kioku: LocalKioku; dir: string }> {
    const dir = tempDir();
    const kioku = await openKioku({ data: dir.path });
    cleanups.push(dir.cleanup, () => kioku.close());
    return { kioku, dir: dir.path };
  }

  it('declares the text fields of every catalogued event type', () => {
    expect(EVENT_TYPES.filter((t) => TEXT_FIELDS[t] === undefined)).toEqual([]);
  });

  it('stores placeholders, keeps the values in the vault, and says so in a secret.redacted event', async () => {
    const { kioku, dir } = await open();
    const text = `the staging key is ${KEY} and the db password=${PASSWORD}`;
    await kioku.writeMemories({ memories: [{ id: 'm1', kind: 'fact', text }] });
    const item = await kioku.evidence('ev1:private:memory:m1');
    const stored = JSON.stringify(item);
    expect(stored).not.toContain(KEY);
    expect(stored).not.toContain(PASSWORD);
    const placeholders = [...new Set(stored.match(/⟦secret:[a-z-]+:[a-z0-9]+⟧/g))].map((p) => /⟦secret:([a-z-]+):([a-z0-9]+)⟧/.exec(p)!);
    expect(placeholders.map((m) => m[1]).sort()).toEqual(['openai-key', 'password']);
    for (const m of placeholders) expect(['openai-key', 'password']).toContain(kioku.privacy.vault.get('private', m[2]!)?.kind);
    expect(placeholders.map((m) => kioku.privacy.vault.get('private', m[2]!)?.value).sort()).toEqual([PASSWORD, KEY].sort());

    const notes = [];
    for await (const r of kioku.log.read({ types: ['secret.redacted'] })) notes.push(r.data);
    expect(notes).toEqual([
      { id: placeholders[0]![2], kind: 'openai-key', event_type: 'memory.written', fields: ['text'] },
      { id: placeholders[1]![2], kind: 'password', event_type: 'memory.written', fields: ['text'] },
    ]);
    await kioku.close();
    const bytes = Buffer.concat(filesUnder(dir, vaultDir(dir)));
    expect(bytes.includes(KEY)).toBe(false);
    expect(bytes.includes(PASSWORD)).toBe(false);
    expect(readFileSync(join(vaultDir(dir), 'secrets.jsonl'), 'utf8')).not.toContain(KEY);
    expect(statSync(join(vaultDir(dir), 'vault.key')).mode & 0o777).toBe(0o600);
  });

  it('keeps ids and dedupe: the same memory sent again is an idempotent repeat, the same secret one placeholder', async () => {
    const { kioku } = await open();
    const text = `deploy with token: ghp_${'a1B2c3D4e5'.repeat(4)}`;
    const first = await kioku.writeMemories({ memories: [{ id: 'm1', kind: 'fact', text }] });
    const again = await kioku.writeMemories({ memories: [{ id: 'm1', kind: 'fact', text }] });
    expect(first.written).toEqual(['m1']);
    expect(again.written).toEqual([]);
    await kioku.writeMemories({ memories: [{ id: 'm2', kind: 'fact', text }] });
    const [a, b] = await Promise.all(['m1', 'm2'].map((id) => kioku.evidence(`ev1:private:memory:${id}`)));
    const ph = (x: unknown): string[] => [...new Set(JSON.stringify(x).match(/⟦secret:[^⟧]+⟧/g))];
    expect(ph(a)).toHaveLength(1);
    expect(ph(a)).toEqual(ph(b));
    expect(kioku.privacy.vault.size()).toBe(1);
  });

  it('redacts the text of turns, recall queries and answers, not their ids', async () => {
    const { kioku } = await open();
    const session = await kioku.openSession({ agent: 'test' });
    const turn = await kioku.startTurn({ session_id: session.session_id, query: `why does postgres://app:${PASSWORD}@db/x refuse me?` });
    await kioku.completeTurn(turn.turn_id, { answer: `use ${KEY} instead`, tool_data: { env: { OPENAI_API_KEY: KEY } } });
    const frames: string[] = [];
    for await (const r of kioku.log.read()) frames.push(JSON.stringify(r));
    const all = frames.join('\n');
    expect(all).not.toContain(PASSWORD);
    expect(all).not.toContain(KEY);
    expect(all).toContain(turn.turn_id);
    const types = frames.map((f) => (JSON.parse(f) as { type: string; data: { event_type?: string } })).filter((r) => r.type === 'secret.redacted');
    expect(new Set(types.map((r) => r.data.event_type))).toEqual(new Set(['turn.started', 'recall.performed', 'turn.completed']));
    // the log holds what was stored: a rebuild folds the same state, bit for bit
    await kioku.writeMemories({ memories: [{ id: 'm1', kind: 'fact', text: `the key is ${KEY}` }] });
    const before = kioku.projections.digests();
    await kioku.projections.rebuild();
    expect(kioku.projections.digests()).toEqual(before);
  });

  it("keeps the hook's spool free of them: a capture the service could not take waits redacted, its value in the vault", async () => {
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    mkdirSync(join(dir.path, 'hook'), { recursive: true });
    writeFileSync(join(dir.path, 'hook', 'codex-cx-spool.turn'), 't-spooled');
    const stop = JSON.stringify({ hook_event_name: 'Stop', session_id: 'cx-spool', cwd: '/repo', transcript_path: null, last_assistant_message: `use ${KEY} from now on` });
    const env = { PATH: process.env['PATH'] ?? '', HOME: dir.path, KIOKU_URL: 'http://127.0.0.1:9' };
    expect((await runHook(stop, { data: dir.path, host: 'codex', env })).stdout).toBe('');
    const spool = readFileSync(join(dir.path, 'hook', 'spool.jsonl'), 'utf8');
    expect(spool).toContain('t-spooled');
    expect(spool).not.toContain(KEY);
    const id = /⟦secret:openai-key:([a-z0-9]+)⟧/.exec(spool)?.[1] ?? '';
    expect(new SecretVault(vaultDir(dir.path)).get('private', id)?.value).toBe(KEY);
  });
});
