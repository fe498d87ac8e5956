// Property-based fuzzing of the asset doors (issue 29 item 1): paths built from the pieces an
// attacker combines (the data dir and its files, /etc, /proc, /sys, /dev, "..", ".", doubled and
// trailing slashes, NUL, symlinks out of the root, a directory symlink into the data dir, another
// namespace), uploads with hostile names, and a file swapped for a symlink between reads.
// Properties: never a 5xx; a registration succeeds only for a regular file whose real path lies
// under the namespace's root (an oracle written apart from the policy); a refusal moves nothing in
// the log; no answer ever holds a canary planted outside the root or in the data dir.
import { existsSync, mkdirSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import fc from 'fast-check';

export interface AssetFuzzTarget {
  url: string;
  head: () => number;
  /** the service's data dir */
  dataDir: string;
  /** the asset root configured for namespace `private` (KIOKU_ASSET_ROOTS); other namespaces have none */
  root: string;
  /** a scratch folder outside both, for the files the root's symlinks point to */
  outside: string;
  /** a canary already written into the store under another namespace (it lies in the log's files) */
  storedCanary: string;
  token?: string;
}

export interface AssetFuzzOutcome {
  requests: number;
  by_status: Record<string, number>;
  /** registrations the oracle said must be refused, and how many were */
  attacks: { sent: number; refused: number };
  registered: number;
  violations: { rule: string; request: string; status: number; body: string }[];
}

const FILE_CANARY = 'canary-outside-root-5d1f';

/** Plant the files and symlinks the attacks aim at. */
function plant(t: AssetFuzzTarget): void {
  mkdirSync(t.outside, { recursive: true });
  writeFileSync(join(t.outside, 'secret.txt'), FILE_CANARY);
  writeFileSync(join(t.root, 'ok.txt'), 'an ordinary asset');
  mkdirSync(join(t.root, 'sub'), { recursive: true });
  writeFileSync(join(t.root, 'sub', 'deep.txt'), 'a nested asset');
  const links: [string, string][] = [
    ['link-out', join(t.outside, 'secret.txt')],
    ['link-dir', t.outside],
    ['link-data', t.dataDir],
    ['link-auth', join(t.dataDir, 'auth.json')],
    ['link-proc', '/proc/self/environ'],
    ['link-run', join(t.dataDir, 'kioku.run.json')],
    ['link-in', join(t.root, 'ok.txt')],
  ];
  for (const [name, target] of links) if (!existsSync(join(t.root, name))) symlinkSync(target, join(t.root, name));
}

const inside = (child: string, parent: string): boolean => child === parent || child.startsWith(parent + sep);

/** The oracle: may namespace `private` register this path? A regular file whose real path is under the root, not in the data dir. */
function allowed(t: AssetFuzzTarget, path: string, ns: string): boolean {
  if (ns !== 'private' || !path.startsWith('/') || path.includes('\0')) return false;
  try {
    const real = realpathSync(path);
    return statSync(real).isFile() && inside(real, realpathSync(t.root)) && !inside(real, realpathSync(t.dataDir));
  } catch {
    return false;
  }
}

const SEGMENTS = [
  '..',
  '.',
  '',
  'log',
  'auth.json',
  'kioku.run.json',
  'keys',
  'anchor-ed25519.pem',
  'anchors.jsonl',
  'CURRENT',
  'LOCK',
  'LOG',
  'assets',
  'private',
  'other',
  'shadow',
  'passwd',
  'environ',
  'cmdline',
  'self',
  'zero',
  'null',
  'secret.txt',
  'ok.txt',
  'sub',
  'deep.txt',
  'link-out',
  'link-dir',
  'link-data',
  'link-auth',
  'link-proc',
  'link-run',
  'link-in',
  '%2e%2e',
  '..%2f',
  '․․',
  'ok.txt\u0000.png',
];

interface Answer {
  status: number;
  text: string;
  json: Record<string, unknown>;
}

/** Requests to the target, counted by status, and the rules checked on their answers (violations go to `outcome`). */
function probe(t: AssetFuzzTarget, outcome: AssetFuzzOutcome) {
  const canaries = [FILE_CANARY, t.storedCanary];
  const send = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> => {
    const res = await fetch(`${t.url}${path}`, {
      method,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(t.token ? { authorization: `Bearer ${t.token}` } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    outcome.requests += 1;
    outcome.by_status[String(res.status)] = (outcome.by_status[String(res.status)] ?? 0) + 1;
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      json = {};
    }
    return { status: res.status, text, json };
  };
  const check = (rule: boolean, name: string, request: unknown, r: { status: number; text: string }): void => {
    if (!rule) outcome.violations.push({ rule: name, request: JSON.stringify(request).slice(0, 300), status: r.status, body: r.text.slice(0, 300) });
  };
  const common = (request: unknown, r: { status: number; text: string }): void => {
    check(r.status < 500, 'no 5xx', request, r);
    check(!canaries.some((c) => r.text.includes(c)), 'no canary in any answer', request, r);
  };
  return { send, check, common };
}

type Probe = ReturnType<typeof probe>;

/** What the fuzzer does: register attack and legitimate paths, read assets back, swap a registered file for a symlink, upload under hostile names. */
function assetActions(t: AssetFuzzTarget) {
  const base = fc.constantFrom(
    t.dataDir,
    t.root,
    t.outside,
    '/etc',
    '/proc/self',
    '/proc/1',
    '/sys/kernel',
    '/dev',
    '/',
    join(t.root, 'link-data'),
    join(t.root, 'link-dir'),
    join(t.root, 'sub'),
  );
  const attackPath = fc
    .record({ base, segments: fc.array(fc.constantFrom(...SEGMENTS), { maxLength: 7 }), slashes: fc.constantFrom('/', '//', '/./'), trailing: fc.boolean() })
    .map(({ base: b, segments, slashes, trailing }) => `${b}${segments.length ? slashes : ''}${segments.join('/')}${trailing ? '/' : ''}`);
  // files that are the namespace's to register (unless a swap has just made ok.txt a symlink out)
  const legitPath = fc.constantFrom('ok.txt', 'sub/deep.txt', 'link-in', 'sub/../ok.txt', './sub//deep.txt').map((p) => `${t.root}/${p}`);
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constant('register' as const),
        path: fc.oneof({ weight: 4, arbitrary: attackPath }, { weight: 1, arbitrary: legitPath }),
        ns: fc.constantFrom('private', 'private', 'other'),
        id: fc.constantFrom('a1', 'a2', 'a3'),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant('get' as const), id: fc.constantFrom('a1', 'a2', 'a3', 'u1', 'nope'), ns: fc.constantFrom('private', 'other') }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('swap' as const), to: fc.constantFrom('file', 'link-out', 'link-auth', 'link-proc') }) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('upload' as const),
        name: fc.oneof(fc.constantFrom(...SEGMENTS, '../../auth.json', '/etc/passwd', 'a/b', '.hidden', 'x'.repeat(300)), fc.string({ maxLength: 20 })),
        content: fc.string({ maxLength: 40 }),
        ns: fc.constantFrom('private', 'other'),
      }),
    },
  );
}

type AssetAction = ReturnType<typeof assetActions> extends fc.Arbitrary<infer A> ? A : never;

/** The registered ok.txt becomes a symlink out (or a file again) between reads. */
function swap(t: AssetFuzzTarget, to: Extract<AssetAction, { kind: 'swap' }>['to']): void {
  const file = join(t.root, 'ok.txt');
  rmSync(file, { force: true });
  if (to === 'file') writeFileSync(file, 'an ordinary asset');
  else symlinkSync(to === 'link-out' ? join(t.outside, 'secret.txt') : to === 'link-auth' ? join(t.dataDir, 'auth.json') : '/proc/self/environ', file);
}

/** A registration is accepted exactly when the oracle allows it, and a refusal appends nothing. */
async function register(t: AssetFuzzTarget, p: Probe, outcome: AssetFuzzOutcome, a: Extract<AssetAction, { kind: 'register' }>): Promise<void> {
  const before = t.head();
  const request = { id: a.id, path: a.path, description: 'fuzzed asset', namespace: a.ns };
  const may = allowed(t, a.path, a.ns);
  const r = await p.send('POST', '/v1/assets', request);
  p.common(request, r);
  if (!may) {
    outcome.attacks.sent += 1;
    if (r.status >= 400 && r.status < 500) outcome.attacks.refused += 1;
    else p.check(false, 'an attack path is refused', request, r);
  } else p.check(r.status >= 200 && r.status < 300, 'a file under the root is accepted', request, r);
  if (r.status >= 200 && r.status < 300) outcome.registered += 1;
  else p.check(t.head() === before, 'a refusal appends nothing', request, r);
}

/** An upload lands in its namespace's uploads folder, whatever its name; a refusal appends nothing. */
async function upload(t: AssetFuzzTarget, p: Probe, a: Extract<AssetAction, { kind: 'upload' }>): Promise<void> {
  const before = t.head();
  const request = { id: 'u1', content: a.content, name: a.name, description: 'fuzzed upload', namespace: a.ns };
  const r = await p.send('POST', '/v1/assets', request);
  p.common(request, r);
  if (r.status >= 200 && r.status < 300) {
    const got = await p.send('GET', `/v1/assets/u1?include_content=1&namespace=${a.ns}`);
    p.common(request, got);
    const stored = String(got.json['path'] ?? '');
    p.check(inside(stored, join(realpathSync(t.dataDir), 'assets', a.ns)), "an upload stays in its namespace's uploads folder", request, got);
  } else p.check(t.head() === before, 'a refusal appends nothing', request, r);
}

export async function fuzzAssets(t: AssetFuzzTarget, options: { runs: number; seed: number }): Promise<AssetFuzzOutcome> {
  plant(t);
  const outcome: AssetFuzzOutcome = { requests: 0, by_status: {}, attacks: { sent: 0, refused: 0 }, registered: 0, violations: [] };
  const p = probe(t, outcome);
  await fc.assert(
    fc.asyncProperty(assetActions(t), async (a) => {
      if (a.kind === 'swap') return swap(t, a.to);
      if (a.kind === 'register') return register(t, p, outcome, a);
      if (a.kind === 'upload') return upload(t, p, a);
      const before = t.head();
      const r = await p.send('GET', `/v1/assets/${a.id}?include_content=1&namespace=${a.ns}`);
      p.common(a, r);
      p.check(t.head() === before, 'reading an asset appends nothing', a, r);
    }),
    { numRuns: options.runs, seed: options.seed, endOnFailure: true },
  );
  return outcome;
}
