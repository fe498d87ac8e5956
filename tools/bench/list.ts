// npm run bench:list -- [--records 100000] [--json] [--data DIR]
// Browsing through the front door: a library of N memories (written as events, then served by
// `kioku serve` in its own process), paged with GET /v1/items over loopback HTTP by this process:
// every page of the whole library at 50 a page and at 500 a page, pages filtered by a tag one item
// in ten carries, and pages of a text substring that few items hold (each such page walks up to
// 20,000 keys). Reports the first page apart (it sorts the library's keys once) and p50/p95 per page.
// Prints a table, then one JSON object.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { requestKioku } from '../../src/client.js';
import type { AppendInput } from '../../src/events/index.js';
import { openStore } from '../../src/store.js';
import { serveChild } from './serve-child.js';
import { Synthetic, percentile } from './synthetic.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '100000' },
    data: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
const RECORDS = Number(values.records);
if (!Number.isSafeInteger(RECORDS) || RECORDS < 1) {
  process.stderr.write('usage: bench:list -- [--records N] [--data DIR] [--json]\n');
  process.exit(2);
}
const keep = values.data !== undefined;
const dataDir = keep ? resolve(values.data as string) : mkdtempSync(join(tmpdir(), 'kioku-bench-list-'));
if (keep) for (const d of ['log', 'log.acked', 'projections']) rmSync(join(dataDir, d), { recursive: true, force: true });
const log = (msg: string): void => void process.stderr.write(`${msg}\n`);

// ---- the library: N memories, one in ten tagged "t3", one in a thousand holding "needle" ----
const syn = new Synthetic();
let t = performance.now();
{
  const store = await openStore({ data: dataDir });
  for (let i = 0; i < RECORDS; i += 1000) {
    const events: AppendInput[] = [];
    for (let j = i; j < Math.min(RECORDS, i + 1000); j++)
      events.push({
        type: 'memory.written',
        ns: 'private',
        actor: 'bench',
        data: { id: `r${j}`, kind: j % 3 ? 'fact' : 'decision', text: `${syn.text(j)}${j % 1000 === 7 ? ' needle' : ''}`, tags: [`t${j % 10}`] },
      });
    const appended = await store.log.appendAll(events);
    await store.projections.waitFor(appended.at(-1)?.seq ?? 0);
    if ((i / 1000) % 20 === 0) log(`  wrote ${Math.min(RECORDS, i + 1000)}/${RECORDS}`);
  }
  await store.close();
}
const writeMs = performance.now() - t;

// ---- the service, in its own process ----
t = performance.now();
const service = await serveChild(dataDir);
const startMs = performance.now() - t;
const base = service.url;

interface Walk {
  first_ms: number;
  pages: number;
  items: number;
  p50_ms: number;
  p95_ms: number;
}

/** Every page of a listing, timed one by one (the first apart). */
async function walk(query: string, maxPages = Infinity): Promise<Walk> {
  const times: number[] = [];
  let cursor: string | null = null;
  let items = 0;
  do {
    const s = performance.now();
    const page: { items: unknown[]; next_cursor: string | null } = await requestKioku(base, `/v1/items?${query}${cursor ? `&cursor=${cursor}` : ''}`, {
      method: 'GET',
      timeoutMs: 60_000,
    });
    times.push(performance.now() - s);
    items += page.items.length;
    cursor = page.next_cursor;
  } while (cursor && times.length < maxPages);
  const rest = times.slice(1);
  return { first_ms: round(times[0] ?? 0), pages: times.length, items, p50_ms: percentile(rest, 0.5), p95_ms: percentile(rest, 0.95) };
}
const round = (n: number): number => Math.round(n * 1000) / 1000;

let results: Record<string, Walk>;
try {
  results = {
    'all, 50 a page': await walk('limit=50'),
    'all, 500 a page': await walk('limit=500'),
    'tag t3, 50 a page': await walk('limit=50&tag=t3'),
    'kind decision + tag t3': await walk('limit=50&kind=decision&tag=t3'),
    'text "needle"': await walk('limit=50&text=needle'),
  };
} finally {
  await service.stop();
  if (!keep) rmSync(dataDir, { recursive: true, force: true });
}

const rows = Object.entries(results).map(([name, w]) => `${name.padEnd(26)} ${String(w.pages).padStart(6)} ${String(w.items).padStart(8)} ${w.first_ms.toFixed(1).padStart(9)} ${w.p50_ms.toFixed(2).padStart(8)} ${w.p95_ms.toFixed(2).padStart(8)}`);
process.stdout.write(
  [
    `library: ${RECORDS} memories written in ${(writeMs / 1000).toFixed(1)} s; kioku serve ready in ${(startMs / 1000).toFixed(1)} s`,
    `GET /v1/items over loopback HTTP (service in its own process)`,
    `${'listing'.padEnd(26)} ${'pages'.padStart(6)} ${'items'.padStart(8)} ${'first ms'.padStart(9)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)}`,
    ...rows,
    '',
  ].join('\n'),
);
process.stdout.write(
  `${JSON.stringify({ bench: 'list', transport: 'http', records: RECORDS, write_ms: Math.round(writeMs), serve_ready_ms: Math.round(startMs), listings: results })}\n`,
);
