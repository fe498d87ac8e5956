// The event mix the log and store benches append: a turn's worth of events (start, recall
// with candidates, verdicts, delivery, completion) plus knowledge writes.
import { compactRecall, compactVerdicts, type AppendInput } from '../../src/events/index.js';

// A realistic mix: a turn's worth of events (start, recall with candidates, verdicts, delivery, completion) plus writes.
const key = (i: number, j: number): string => `ev1:private:memory:m${(i * 7 + j) % 5000}`;
export function benchEvent(i: number): AppendInput {
  switch (i % 6) {
    case 0:
      return {
        type: 'turn.started',
        actor: 'bench',
        data: { turn_id: `t${i}`, session_id: `s${i % 50}`, query: `how do we roll back release ${i} without losing the migration?` },
      };
    case 1:
      return {
        type: 'recall.performed',
        actor: 'bench',
        data: {
          recall_id: `r${i}`,
          turn_id: `t${i - 1}`,
          retrieval_mode: 'hybrid',
          queries: [{ kind: 'utterance', text: `roll back release ${i}` }],
          ...compactRecall({
            prefix: 'ev1:private:',
            candidates: Array.from({ length: 8 }, (_, j) => ({
              evidence_key: key(i, j),
              score: 1 / (j + 1),
              lanes: { keyword: { rank: j + 1, score: 3 - j / 4 } },
              flags: { returned: j < 3, judged: j < 5, demoted: false, meta: false },
            })),
          }),
        },
      };
    case 2:
      return {
        type: 'verdict.recorded',
        actor: 'bench',
        data: {
          recall_id: `r${i - 1}`,
          judge: 'local',
          status: 'complete',
          ...compactVerdicts(
            'ev1:private:',
            Array.from({ length: 8 }, (_, j) => ({ evidence_key: key(i - 1, j), score: j < 2 ? 0.8 : 0.1 })),
          ),
        },
      };
    case 3:
      return { type: 'delivery.made', actor: 'bench', data: { recall_id: `r${i - 2}`, items: [{ evidence_key: key(i - 2, 0), verdict: 0.8 }] } };
    case 4:
      return {
        type: 'turn.completed',
        actor: 'bench',
        data: { turn_id: `t${i - 4}`, session_id: `s${(i - 4) % 50}`, answer: `Run scripts/rollback.sh ${i} then re-apply the migration.` },
      };
    default:
      return {
        type: 'memory.written',
        ns: i % 12 === 5 ? 'team' : 'private',
        actor: 'bench',
        data: {
          id: `m${i}`,
          kind: 'procedure',
          text: `Release ${i}: rollback is scripts/rollback.sh; the migration must be re-applied by hand.`,
          terms: ['rollback', 'revert'],
        },
      };
  }
}
