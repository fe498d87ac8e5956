// node --import tsx evals/replay/scripted-history.ts [DIR]
// Writes a scripted history into a fresh data dir (or DIR): the offline eval library, then
// two sessions of turns through the real core (bundled USE-lite, local judge), each
// completed with an answer. Then `kioku replay --data DIR` re-runs those turns through
// today's delivery rules from what the log holds. Used for the replay figures in the
// closing notes and evals/README.md.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createEmbedder } from '../../src/embed/index.js';
import { loadLibrary } from '../../src/eval/index.js';
import { openKioku } from '../../src/kioku.js';
import { LocalJudge, completeTurn, createRecallCore, openSession, startTurn } from '../../src/recall/index.js';

const root = resolve(import.meta.dirname, '../..');
const dir = process.argv[2] ?? mkdtempSync(join(tmpdir(), 'kioku-history-'));
await loadLibrary(dir, join(root, 'evals/library'), undefined);
const store = await openKioku({ data: dir });
const core = createRecallCore(store, { embedder: createEmbedder(), judge: new LocalJudge() });
const sessions: string[][] = [
  [
    'How do I roll back a bad release?',
    'And what does the rollback script need?',
    'How do I roll back a bad release?', // repeated: the card is still visible, nothing new
    'Can we deploy to production on a Friday?',
    'ok thanks',
  ],
  ['What is the product cache TTL?', 'Which database does staging use?', 'When are invoices sent out?', 'Why was search slow on Mondays?'],
];
for (const [n, turns] of sessions.entries()) {
  const { session_id } = await openSession(core, { agent: `scripted-${n + 1}` });
  for (const query of turns) {
    const t = await startTurn(core, { session_id, query });
    await completeTurn(core, t.turn_id, { answer: t.delivery.length ? `Using ${t.delivery.map((d) => d.title).join('; ')}.` : 'Noted.' });
    process.stdout.write(`${query.padEnd(45)} → ${t.delivery.map((d) => d.evidence_key).join(', ') || '(nothing)'}\n`);
  }
}
await core.close();
await store.close();
process.stdout.write(`history written to ${dir}\n`);
