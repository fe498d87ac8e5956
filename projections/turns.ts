// turns: sessions and turns — who opened a session, what a turn asked, what was
// delivered in it and whether (and with what body) it was completed.
import { createHash } from 'node:crypto';
import type { EventData, LogRecord } from '../src/events/index.js';
import { PlainStateProjection } from './projection.js';

export interface SessionState {
  ns: string;
  agent: string;
  opened_at: number;
}

export interface TurnState {
  ns: string;
  session_id: string;
  query: string;
  started_at: number;
  delivered: string[];
  /** log seqs of this turn's events (start, recall, verdicts, delivery, completion) */
  seqs: number[];
  /** hash of the completion body (answer + tool data), once completed */
  completed?: string;
  delivery_outcomes?: { evidence_key: string; term_overlap: number }[];
}

interface TurnsSnapshot {
  sessions: Record<string, SessionState>;
  turns: Record<string, TurnState>;
}

export function completionHash(answer: string, toolData: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([answer, toolData ?? null]))
    .digest('hex');
}

export class TurnsProjection extends PlainStateProjection<TurnsSnapshot> {
  readonly name = 'turns';
  readonly version = 1;
  constructor() {
    super(() => ({ sessions: {}, turns: {} }));
  }

  apply(record: LogRecord): void {
    switch (record.type) {
      case 'session.opened': {
        const d = record.data as EventData<'session.opened'>;
        this.state.sessions[d.session_id] ??= { ns: record.ns, agent: d.agent, opened_at: record.ts };
        return;
      }
      case 'turn.started': {
        const d = record.data as EventData<'turn.started'>;
        this.state.turns[d.turn_id] = { ns: record.ns, session_id: d.session_id, query: d.query, started_at: record.ts, delivered: [], seqs: [record.seq] };
        return;
      }
      case 'recall.performed':
      case 'verdict.recorded': {
        const d = record.data as { turn_id?: string };
        const turn = d.turn_id ? this.state.turns[d.turn_id] : undefined;
        if (turn) turn.seqs.push(record.seq);
        return;
      }
      case 'delivery.made': {
        const d = record.data as EventData<'delivery.made'>;
        const turn = d.turn_id ? this.state.turns[d.turn_id] : undefined;
        if (turn) {
          turn.delivered.push(...d.items.map((i) => i.evidence_key));
          turn.seqs.push(record.seq);
        }
        return;
      }
      case 'turn.completed': {
        const d = record.data as EventData<'turn.completed'>;
        const turn = this.state.turns[d.turn_id];
        if (turn && !turn.completed) {
          turn.seqs.push(record.seq);
          turn.completed = completionHash(d.answer, d.tool_data);
          turn.delivery_outcomes = d.delivery_outcomes ?? [];
        }
        return;
      }
      default:
    }
  }

  session(id: string): SessionState | undefined {
    return this.state.sessions[id];
  }

  turn(id: string): TurnState | undefined {
    return this.state.turns[id];
  }
}
