// turns: sessions and turns — who opened a session, what a turn asked, what was
// delivered in it and whether (and with what body) it was completed.
import { hash as oneShotHash } from 'node:crypto';
import type { EventData, LogRecord } from '../src/events/index.js';
import { canonicalDigest, type Projection } from './projection.js';

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
  return oneShotHash('sha256', JSON.stringify([answer, toolData ?? null]), 'hex');
}

export class TurnsProjection implements Projection {
  readonly name = 'turns';
  readonly version = 1;
  // Maps, not objects keyed by id (a rebuild files every turn); snapshots keep the object form.
  private sessions = new Map<string, SessionState>();
  private turns = new Map<string, TurnState>();

  apply(record: LogRecord): void {
    switch (record.type) {
      case 'session.opened': {
        const d = record.data as EventData<'session.opened'>;
        if (!this.sessions.has(d.session_id)) this.sessions.set(d.session_id, { ns: record.ns, agent: d.agent, opened_at: record.ts });
        return;
      }
      case 'turn.started': {
        const d = record.data as EventData<'turn.started'>;
        this.turns.set(d.turn_id, { ns: record.ns, session_id: d.session_id, query: d.query, started_at: record.ts, delivered: [], seqs: [record.seq] });
        return;
      }
      case 'recall.performed':
      case 'verdict.recorded': {
        const d = record.data as { turn_id?: string };
        const turn = d.turn_id ? this.turns.get(d.turn_id) : undefined;
        if (turn) turn.seqs.push(record.seq);
        return;
      }
      case 'delivery.made': {
        const d = record.data as EventData<'delivery.made'>;
        const turn = d.turn_id ? this.turns.get(d.turn_id) : undefined;
        if (turn) {
          for (const i of d.items) turn.delivered.push(i.evidence_key);
          turn.seqs.push(record.seq);
        }
        return;
      }
      case 'turn.completed': {
        const d = record.data as EventData<'turn.completed'>;
        const turn = this.turns.get(d.turn_id);
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
    return this.sessions.get(id);
  }

  turn(id: string): TurnState | undefined {
    return this.turns.get(id);
  }

  snapshot(): TurnsSnapshot {
    return { sessions: Object.fromEntries(this.sessions), turns: Object.fromEntries(this.turns) };
  }

  load(state: unknown): void {
    const s = state as TurnsSnapshot;
    this.sessions = new Map(Object.entries(s.sessions));
    this.turns = new Map(Object.entries(s.turns));
  }

  reset(): void {
    this.sessions = new Map();
    this.turns = new Map();
  }

  digest(): string {
    return canonicalDigest(this.snapshot());
  }
}
