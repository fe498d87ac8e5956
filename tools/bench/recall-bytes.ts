// npm run bench:recall-bytes -- [--json] [--model hash|use-lite] [--passes 2]
// What a read costs the log: the offline library (evals/library) is loaded, then every query of
// evals/cases/recall.json is asked as a turn (open session, turns/start with the local judge,
// turns/complete), `passes` times in fresh sessions. Prints the stored frame bytes of each event
// type per turn (recall.performed above all: issue 31 measured 6–13 KB per recall) and of the
// whole turn. Prints a table, then one JSON object.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createEmbedder, type EmbedderKind } from '../../src/embed/index.js';
import { loadLibrary } from '../../src/eval/index.js';
import { openKioku } from '../../src/kioku.js';
import { LocalJudge } from '../../src/recall/index.js';
import { percentile } from './synthetic.js';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    model: { type: 'string', default: 'hash' },
    passes: { type: 'string', default: '2' },
  },
});
const PASSES = Number(values.passes);
if (!Number.isSafeInteger(PASSES) || PASSES < 1 || !['hash', 'use-lite'].includes(values.model)) {
  process.stderr.write('usage: bench:recall-bytes -- [--json] [--model hash|use-lite] [--passes N]\n');
  process.exit(2);
}
const root = resolve(import.meta.dirname, '../..');
const cases = (JSON.parse(readFileSync(join(root, 'evals/cases/recall.json'), 'utf8')) as { cases: { query: string }[] }).cases;
const dataDir = mkdtempSync(join(tmpdir(), 'kioku-bench-recall-bytes-'));
try {
  const kind = values.model as EmbedderKind;
  await loadLibrary(dataDir, join(root, 'evals/library'), kind);
  const store = await openKioku({ data: dataDir, embedder: createEmbedder({ kind }), judge: new LocalJudge() });
  const firstTurnSeq = store.log.head().seq + 1;
  try {
    for (let pass = 0; pass < PASSES; pass++) {
      const { session_id } = await store.openSession({ agent: 'bench', session_id: `bytes-${pass}` });
      for (const c of cases) {
        const t = await store.startTurn({ session_id, query: c.query });
        await store.completeTurn(t.turn_id, { answer: `Noted: ${c.query}` });
      }
    }
    const byType = new Map<string, number[]>();
    let libraryBytes = 0;
    for await (const r of store.log.read({ from: 1 })) {
      if (r.seq < firstTurnSeq) libraryBytes += r.bytes;
      else byType.set(r.type, [...(byType.get(r.type) ?? []), r.bytes]);
    }
    const turns = cases.length * PASSES;
    const recall = byType.get('recall.performed') ?? [];
    const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
    const perTurn = Object.fromEntries([...byType].map(([type, xs]) => [type, { events: xs.length, bytes_per_turn: Math.round(sum(xs) / turns) }]));
    const turnBytes = sum([...byType].filter(([type]) => type !== 'session.opened').flatMap(([, xs]) => xs));
    const sorted = [...recall].sort((a, b) => a - b);
    const summary = {
      model: kind,
      turns,
      library_bytes: libraryBytes,
      recall_performed: {
        events: recall.length,
        mean: Math.round(sum(recall) / Math.max(1, recall.length)),
        p50: percentile(sorted, 0.5),
        max: sorted.at(-1) ?? 0,
      },
      bytes_per_turn: Math.round(turnBytes / turns),
      per_type: perTurn,
    };
    const rows = [
      ['library (before the turns)', `${libraryBytes} B`],
      ['turns', String(turns)],
      ['recall.performed mean / p50 / max', `${summary.recall_performed.mean} / ${summary.recall_performed.p50} / ${summary.recall_performed.max} B`],
      ...Object.entries(perTurn).map(([type, p]) => [`${type} per turn`, `${p.bytes_per_turn} B (${p.events} events)`]),
      ['whole turn (all its events)', `${summary.bytes_per_turn} B`],
    ];
    for (const [k, v] of rows) process.stdout.write(`${(k as string).padEnd(38)} ${v}\n`);
    if (values.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
  } finally {
    await store.close();
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
