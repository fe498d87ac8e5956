// npm run bench:import -- [--sections 10000] [--per-file 20] [--workers N] [--json]
// A large import the way a user runs it: markdown wiki pages written to a folder, then
// `kioku import wiki DIR` (the installed entry, a fresh data dir) with the bundled model
// embedding every section. Reports the whole command's time, the import and embedding parts,
// and sections per second. `--workers 1` measures one model copy (the default is one per core).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    sections: { type: 'string', default: '10000' },
    'per-file': { type: 'string', default: '20' },
    workers: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
const SECTIONS = Number(values.sections);
const PER_FILE = Number(values['per-file']);
const WORKERS = values.workers === undefined ? Math.min(4, availableParallelism()) : Number(values.workers);
if (![SECTIONS, PER_FILE, WORKERS].every((n) => Number.isSafeInteger(n) && n > 0)) {
  process.stderr.write('usage: bench:import -- [--sections N] [--per-file N] [--workers N] [--json]\n');
  process.exit(2);
}

const root = mkdtempSync(join(tmpdir(), 'kioku-bench-import-'));
const pages = join(root, 'wiki');
mkdirSync(pages);
const subjects = [
  'the billing service',
  'the deploy pipeline',
  'the staging database',
  'the cache layer',
  'the release train',
  'the on-call rota',
  'the search index',
  'the mobile app',
];
const actions = ['rolls back', 'migrates', 'restarts', 'rotates the keys of', 'scales out', 'pins the version of', 'backs up', 'audits'];
const when = [
  'every Friday',
  'after each release',
  'when the error rate doubles',
  'before a holiday freeze',
  'on the first of the month',
  'during the night window',
];
const pick = <T>(xs: readonly T[], i: number): T => xs[i % xs.length] as T;
const sentence = (i: number, j: number): string =>
  `Step ${j + 1}: ${pick(subjects, i * 3 + j)} ${pick(actions, i + j * 5)} ${pick(subjects, i + j + 1)} ${pick(when, i * 7 + j)}, and the owner writes it down in ticket OPS-${1000 + ((i * 13 + j) % 9000)}.`;
let written = 0;
for (let f = 0; written < SECTIONS; f++) {
  const lines = [`# Runbook ${f}`, ''];
  for (let s = 0; s < PER_FILE && written < SECTIONS; s++, written++) {
    lines.push(`## Procedure ${f}.${s}`, '', ...Array.from({ length: 3 }, (_, j) => sentence(written, j)), '');
  }
  writeFileSync(join(pages, `runbook-${f}.md`), lines.join('\n'));
}

const bin = resolve(import.meta.dirname, '..', '..', 'bin', 'kioku.js');
const data = join(root, 'data');
const started = performance.now();
const out = execFileSync(process.execPath, [bin, 'import', 'wiki', pages, '--data', data, '--json'], {
  encoding: 'utf8',
  env: { ...process.env, KIOKU_EMBED_WORKERS: String(WORKERS), KIOKU_EMBEDDER: 'use-lite' },
  maxBuffer: 256 << 20,
  stdio: ['ignore', 'pipe', 'inherit'],
});
const totalSeconds = (performance.now() - started) / 1000;
const report = JSON.parse(out.trim().split('\n').at(-1) as string) as {
  ok: boolean;
  files: number;
  added: string[];
  embedding: { embedded: number; seconds: number; status: string } | null;
};
rmSync(root, { recursive: true, force: true });

const embedSeconds = report.embedding?.seconds ?? 0;
const result = {
  bench: 'import',
  sections: SECTIONS,
  files: report.files,
  workers: WORKERS,
  ok: report.ok && report.embedding?.status === 'succeeded',
  embedded: report.embedding?.embedded ?? 0,
  totalSeconds: Math.round(totalSeconds * 10) / 10,
  embedSeconds,
  importSeconds: Math.round((totalSeconds - embedSeconds) * 10) / 10,
  sectionsPerSecond: Math.round(SECTIONS / totalSeconds),
  embeddedPerSecond: embedSeconds > 0 ? Math.round((report.embedding?.embedded ?? 0) / embedSeconds) : null,
  node: process.version,
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
};
const rows: [string, string][] = [
  ['sections / files / model copies', `${SECTIONS} / ${report.files} / ${WORKERS}`],
  ['whole command s (import + embedding)', `${result.totalSeconds} (${result.importSeconds} + ${embedSeconds})`],
  ['sections/s overall, embedded/s', `${result.sectionsPerSecond}, ${result.embeddedPerSecond}`],
];
for (const [k, v] of rows) process.stdout.write(`${k.padEnd(40)} ${v}\n`);
if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
