// turns: sessions and turns — who opened a session, what a turn asked, what was
// delivered in it and whether (and with what body) it was completed. A session id is the
// client's and belongs to its namespace (two namespaces may each have a session "s1"); turn
// ids are made by the server (random), so one id names one turn.
import { hash as oneShotHash } from 'node:crypto';
import type { EventData, LogRecord } from '../src/events/index.js';
import { canonicalDigest, type Projection } from './projection.js';

/** Who holds a session or a turn in an org (issue 34): its member, or for a token acting as no member its actor (`<door>:<token name>`). */
export interface Holder {
  owner?: string;
  actor?: string;
}

export interface SessionState extends Holder {
  ns: string;
  agent: string;
  opened_at: number;
}

export interface TurnState extends Holder {
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
  /** by sessionKey(ns, session id) */
  sessions: Record<string, SessionState>;
  turns: Record<string, TurnState>;
}

/**
 * Where a session is filed: its namespace and its id. Before v2 sessions were filed by id alone and
 * opening an id another namespace held was refused, so a log folds to the same sessions either way
 * (save an id two namespaces opened in a race: v1 kept the first, v2 keeps both).
 */
export function sessionKey(ns: string, sessionId: string): string {
  return `${ns}\u0000${sessionId}`;
}

/** The holder a session or turn event names: its owner member, else the actor that appended it. */
function holderOf(owner: string | undefined, actor: string): Holder {
  return owner !== undefined ? { owner } : { actor };
}

export function completionHash(answer: string, toolData: unknown): string {
  return oneShotHash('sha256', JSON.stringify([answer, toolData ?? null]), 'hex');
}

export class TurnsProjection implements Projection {
  readonly name = 'turns';
  // v2: sessions filed by namespace and id (a v1 snapshot is discarded and the projection refolded)
  // v3 (issue 33): forgotten and purged traces keep no query
  // v4 (issue 34): sessions and turns keep who holds them (owner, actor)
  readonly version = 4;
  // Maps, not objects keyed by id (a rebuild files every turn); snapshots keep the object form.
  private sessions = new Map<string, SessionState>();
  private turns = new Map<string, TurnState>();

  apply(record: LogRecord): void {
    switch (record.type) {
      case 'session.opened': {
        const d = record.data as EventData<'session.opened'>;
        const key = sessionKey(record.ns, d.session_id);
        if (!this.sessions.has(key)) this.sessions.set(key, { ns: record.ns, agent: d.agent, opened_at: record.ts, ...holderOf(d.owner, record.actor) });
        return;
      }
      case 'turn.started': {
        const d = record.data as EventData<'turn.started'>;
        this.turns.set(d.turn_id, {
          ns: record.ns,
          session_id: d.session_id,
          query: d.query,
          started_at: record.ts,
          delivered: [],
          seqs: [record.seq],
          ...holderOf(d.owner, record.actor),
        });
        return;
      }
      case 'recall.performed':
      case 'verdict.recorded': {
        const turn = this.turnOf(record);
        if (turn) turn.seqs.push(record.seq);
        return;
      }
      case 'delivery.made': {
        const d = record.data as EventData<'delivery.made'>;
        const turn = this.turnOf(record);
        if (turn) {
          for (const i of d.items) turn.delivered.push(i.evidence_key);
          turn.seqs.push(record.seq);
        }
        return;
      }
      case 'turn.completed': {
        const d = record.data as EventData<'turn.completed'>;
        const turn = this.turnOf(record);
        if (turn && !turn.completed) {
          turn.seqs.push(record.seq);
          turn.completed = completionHash(d.answer, d.tool_data);
          turn.delivery_outcomes = d.delivery_outcomes ?? [];
        }
        return;
      }
      case 'item.forgotten':
      case 'purged':
        this.forget(record);
        return;
      default:
    }
  }

  /** A forgotten or purged trace keeps no query here either (issue 33: gone from every view). */
  private forget(record: LogRecord): void {
    const keys =
      record.type === 'purged' ? (record.data as EventData<'purged'>).keys : [`ev1:${record.ns}:${(record.data as EventData<'item.forgotten'>).layer}:${(record.data as EventData<'item.forgotten'>).id}`];
    const prefix = `ev1:${record.ns}:trace:`;
    for (const key of keys) {
      if (!key.startsWith(prefix)) continue;
      const turn = this.turns.get(key.slice(prefix.length));
      if (turn?.ns === record.ns) turn.query = '';
    }
  }

  /** The turn an event belongs to: named by its id, in the event's own namespace (never another's). */
  private turnOf(record: LogRecord): TurnState | undefined {
    const id = (record.data as { turn_id?: string }).turn_id;
    const turn = id ? this.turns.get(id) : undefined;
    return turn?.ns === record.ns ? turn : undefined;
  }

  /** The session `id` of namespace `ns` (another namespace's session of the same id is another session). */
  session(ns: string, id: string): SessionState | undefined {
    return this.sessions.get(sessionKey(ns, id));
  }

  turn(id: string): TurnState | undefined {
    return this.turns.get(id);
  }

  /** Every turn with its id, the last started first (turns are filed in log order). */
  *newestFirst(): IterableIterator<[string, TurnState]> {
    const all = [...this.turns];
    for (let i = all.length - 1; i >= 0; i--) yield all[i] as [string, TurnState];
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
