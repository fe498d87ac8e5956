// The fields issue 33 left neither redacted nor sealed (PV): a memory's tags, attachments and
// speaker, a recall's tag filter (turns/start options.tags), an asset's tags, path and uploaded
// file. Written to namespace alpha through a real loopback server, then alpha is purged: no word of
// those fields is left in any file under the data dir (LevelDB, snapshots, key store, uploads), and
// the uploaded bytes are gone, while the same fields of namespace beta (the control) are still
// found — the scan can fail. Secrets in those fields become placeholders; a name or id holding one
// is refused whole; an uploaded file's name is stored redacted (on disk and in the log).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { startTestServer, type TestServer } from './server-helpers.js';

const GHP = 'ghp_Qm7Zr2Vx5Lm9Tn3Wb6Ks1Hd7Fg4Jy0AeQw2Zx';
const NPM = 'npm_Vb3Nq8Lm2Kd7Xs4Zr9Wt6Yp1Hc5Jf0Ga8Re2T';
// a word per field: tags, attachments, speaker, recall tag filter, asset tags, asset file name, asset bytes
const FIELDS = ['tagmarigold', 'attachquokka', 'speakerheron', 'filterzebra', 'assettagotter', 'filenamelynx', 'bytesnarwhal'];
const PURGED = FIELDS.map((w) => `${w}alpha`);
const CONTROL = FIELDS.map((w) => `${w}beta`);

let s: TestServer;
const dir = tempDir('kioku-purge-fields-');

function filesUnder(root: string): string[] {
  return readdirSync(root).flatMap((f) => {
    const p = join(root, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}
/** every file under `root` (but `skip`) holding `word` as bytes */
const holding = (root: string, word: string, skip = '\0'): string[] => filesUnder(root).filter((f) => !f.startsWith(skip) && readFileSync(f).includes(Buffer.from(word)));
const ok = (r: { status: number; body: unknown }) => expect(r.status, JSON.stringify(r.body)).toBe(200);

async function writeAll(ns: 'alpha' | 'beta'): Promise<void> {
  const [tag, attach, speaker, filter, assetTag, fileName, bytes] = FIELDS.map((w) => `${w}${ns}`) as [string, string, string, string, string, string, string];
  ok(
    await s.call('POST', '/v1/memories', {
      namespace: ns,
      memories: [{ id: `m-${ns}`, kind: 'fact', text: 'The ledger is kept in the shed.', tags: [tag], attachments: [`notes/${attach}.md`], speaker }],
    }),
  );
  ok(await s.call('POST', '/v1/sessions/open', { namespace: ns, agent: 'test', session_id: `s-${ns}` }));
  ok(await s.call('POST', '/v1/turns/start', { namespace: ns, session_id: `s-${ns}`, query: 'where is the ledger?', options: { tags: [filter] } }));
  const asset = await s.call('POST', '/v1/assets', { namespace: ns, content: `the ${bytes} scan`, name: `${fileName}.txt`, description: 'a scan of the ledger', tags: [assetTag] });
  ok(asset);
  assetIds[ns] = String(asset.body['id']);
}
const assetIds: Record<string, string> = {};

beforeAll(async () => {
  s = await startTestServer({ dir: dir.path });
  await writeAll('alpha');
  await writeAll('beta');
}, 60_000);
afterAll(async () => {
  await s?.stop();
  dir.cleanup();
});

describe('tags, attachments, speaker, a recall tag filter and an asset are sealed and purged', () => {
  it('the log holds none of them in plain text (sealed), the projections do', async () => {
    await s.state.store!.projections.snapshotAll();
    for (const word of [...PURGED, ...CONTROL].filter((w) => !w.startsWith('bytes')))
      expect(holding(join(dir.path, 'log'), word), word).toEqual([]);
    const item = await s.call('GET', `/v1/evidence/${encodeURIComponent('ev1:alpha:memory:m-alpha')}`);
    expect(JSON.stringify(item.body)).toContain('tagmarigoldalpha');
    expect(holding(join(dir.path, 'assets', 'alpha'), 'bytesnarwhalalpha')).toHaveLength(1);
  });

  it('a namespace purge leaves no word of them in any file under the data dir, and deletes the uploaded bytes', async () => {
    ok(await s.call('POST', '/v1/purge', { scope: 'namespace', namespace: 'alpha', reason: 'asked to' }));
    await s.stop();
    s = await startTestServer({ dir: dir.path });
    for (const word of PURGED) expect(holding(dir.path, word), word).toEqual([]);
    // the control's fields are still found (a recall's tag filter is kept by no projection: only sealed, in the log)
    for (const word of CONTROL.filter((w) => !w.startsWith('filter'))) expect(holding(dir.path, word).length, word).toBeGreaterThan(0);
    expect(existsSync(join(dir.path, 'assets', 'alpha'))).toBe(false);
    expect((await s.call('GET', `/v1/assets/${assetIds['alpha']}?namespace=alpha`)).status).toBe(404);
    expect((await s.call('GET', `/v1/assets/${assetIds['beta']}?namespace=beta`)).status).toBe(200);
  });
});

describe('secrets in those fields', () => {
  it('become placeholders in tags, attachments, speaker, a recall tag filter and a card’s front-matter tags; an uploaded file is stored under its redacted name', async () => {
    ok(
      await s.call('POST', '/v1/memories', {
        namespace: 'gamma',
        memories: [{ id: 'm-secret', kind: 'fact', text: 'The deploy token lives in the vault.', tags: [GHP], attachments: [`token=${NPM}`], speaker: GHP }],
      }),
    );
    ok(await s.call('POST', '/v1/sessions/open', { namespace: 'gamma', agent: 'test', session_id: 's-gamma' }));
    ok(await s.call('POST', '/v1/turns/start', { namespace: 'gamma', session_id: 's-gamma', query: 'the deploy token?', options: { tags: [NPM] } }));
    const asset = await s.call('POST', '/v1/assets', { namespace: 'gamma', content: 'scan', name: `${GHP}.txt`, description: 'a scan' });
    ok(asset);
    const item = await s.call('GET', `/v1/evidence/${encodeURIComponent('ev1:gamma:memory:m-secret')}`);
    expect(JSON.stringify(item.body)).toContain('⟦secret:');
    // a card's front-matter tags (documents are redacted, not sealed)
    const card = `---\nid: deploy-card\ntags: [ops, ${GHP}]\n---\n# Deploy\n\nRun the deploy script.\n`;
    ok(await s.call('POST', '/v1/import', { namespace: 'gamma', kind: 'cards', root: dir.path, files: [{ path: join(dir.path, 'deploy.md'), markdown: card }] }));
    const tags = (await s.call('GET', '/v1/cards/deploy-card?namespace=gamma')).body;
    expect(JSON.stringify(tags)).toMatch(/⟦secret:github[a-z-]*:[a-z0-9]+⟧/);
    expect(JSON.stringify(tags)).toContain('ops');
    await s.state.store!.projections.snapshotAll();
    for (const secret of [GHP, NPM]) expect(holding(dir.path, secret, join(dir.path, 'vault'))).toEqual([]);
    const uploads = filesUnder(join(dir.path, 'assets', 'gamma'));
    expect(uploads).toHaveLength(1);
    expect(uploads[0]).toMatch(/⟦secret:github[a-z-]*:[a-z0-9]+⟧\.txt$/);
  });

  it('refuses a memory id, a session id or a space name holding one, naming the field; nothing is appended', async () => {
    const head = s.state.store!.log.head().seq;
    const id = await s.call('POST', '/v1/memories', { namespace: 'gamma', memories: [{ id: GHP, kind: 'fact', text: 'x marks the spot' }] });
    expect(id).toMatchObject({ status: 400, body: { error: { code: 'KIOKU_INPUT_INVALID' } } });
    expect(JSON.stringify(id.body)).toContain('memory.written: id: looks like a credential');
    expect(JSON.stringify(id.body)).not.toContain(GHP);
    const session = await s.call('POST', '/v1/sessions/open', { namespace: 'gamma', agent: 'test', session_id: NPM });
    expect(session).toMatchObject({ status: 400, body: { error: { code: 'KIOKU_INPUT_INVALID' } } });
    const space = await s.call('POST', '/v1/org', { namespace: 'gamma', action: 'space_add', space: GHP });
    expect(space.status).toBe(400);
    expect(s.state.store!.log.head().seq).toBe(head);
  });
});
