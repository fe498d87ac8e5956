// The data keys of sealing on PostgreSQL (issue 33, crypto-shredding): a table beside the events
// (`<schema>.kioku_keys`, postgres-schema.ts) that every node of a library shares, so a text node A
// sealed opens on node B, and that allows DELETE, so a purge really destroys the key material.
// This node keeps the keys in memory (sealing and opening are synchronous, on every append and
// read); the table is the truth:
//   - a key made here is inserted in the same transaction as the first group of events sealed
//     with it (PostgresEventLog.commitGroup), so it is durable exactly when they are;
//   - before this node learns of events other nodes committed, it reads the keys added since
//     (`id > last`: keys are inserted only under the append lock, so ids follow commit order), and
//     when those events hold a `purged` one, drops the keys the table lost among those that purge
//     may have deleted (purgedUnits: looked up by kid, never the whole namespace's keys);
//   - a purge here deletes its keys in the transaction that appends its `purged` event, so a key is
//     gone exactly when the event saying so is in the log, on every node.
// A write sealed with a key another node's purge deleted meanwhile is refused (KIOKU_SEAL_KEY_PURGED):
// acknowledged, it would be unreadable at once.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { KiokuError } from '../errors.js';
import type { ValidatedEvent } from '../events/index.js';
import { decodeBody } from './codec.js';
import { KID_LENGTH, kidsIn, type DataKey, type SealKeyStore } from '../privacy/seal-keys.js';

type Queryable = Pick<pg.Pool, 'query'>;

interface KeyRow {
  id: string;
  kid: string;
  unit: string;
  key: Buffer;
}

/** The namespace a unit name (`<kind>:<namespace>:<id>`) belongs to. */
const nsOf = (unit: string): string => unit.split(':', 2)[1] ?? '';

/**
 * The units whose keys a `purged` event of namespace `ns` may have deleted (src/knowledge/purge.ts):
 * a namespace purge, every unit of the namespace; a memory or session purge, the target's unit, the
 * unit of every item it names (`<layer>:<ns>:<id>`), and the namespace's notices (a sign-off note of
 * a notice about a purged item is sealed under its notice's unit, which the event does not name).
 */
export function purgedUnits(ns: string, data: unknown): (unit: string) => boolean {
  const d = data as { scope?: string; target?: string; keys?: unknown };
  if (d.scope === 'namespace' || typeof d.target !== 'string' || !Array.isArray(d.keys)) return (unit) => nsOf(unit) === ns;
  const named = new Set([`${d.scope}:${ns}:${d.target}`]);
  for (const key of d.keys) {
    const parts = typeof key === 'string' ? key.split('#', 1)[0]!.split(':') : [];
    if (parts.length >= 4) named.add(`${parts[2]}:${parts[1]}:${parts.slice(3).join(':')}`);
  }
  return (unit) => named.has(unit) || unit.startsWith(`notice:${ns}:`);
}

/** What one group's transaction does with the keys, and what follows its end. */
export interface KeysInGroup {
  /** SQL to run in the transaction before COMMIT ('' when nothing) */
  sql: string;
  committed(): void;
  failed(): void;
}

export class PostgresKeyStore implements SealKeyStore {
  private readonly byKid = new Map<string, DataKey>();
  private readonly byUnit = new Map<string, DataKey>();
  /** keys made here and not yet committed (inserted with the next group) */
  private unflushed: DataKey[] = [];
  /** kids made here whose insert has not committed yet: a resync never drops them */
  private readonly local = new Set<string>();
  /** units a purge here deletes in the transaction of its `purged` event */
  private readonly doomed = new Set<string>();
  /** the highest row id read from the table */
  private lastId = 0;
  /**
   * a key was ever dropped here: from then on every group's writes are checked, since a write
   * sealed before a drop may reach a later group than the one committing when the drop was learnt
   */
  private dropped = false;

  constructor(
    readonly table: string,
    private readonly eventsTable: string,
    private readonly db: Queryable,
  ) {}

  key(kid: string): Buffer | undefined {
    return this.byKid.get(kid)?.key;
  }

  current(unit: string): DataKey {
    const held = this.byUnit.get(unit);
    if (held) return held;
    const made: DataKey = { kid: randomBytes(KID_LENGTH / 2).toString('hex'), unit, key: randomBytes(32) };
    this.hold(made);
    this.unflushed.push(made);
    this.local.add(made.kid);
    return made;
  }

  /** Nothing to do: the keys go into the table with the group's events (keysForGroup). */
  flush(): void {}

  /**
   * The units `match` accepts among the keys held (every key of the events this node knows of: the
   * facade purges at the head), marked for deletion — every row of theirs, whichever node made it —
   * with the next `purged` event's transaction; new writes of those units get new keys from now on.
   */
  purge(match: (unit: string) => boolean): string[] {
    const units = new Set([...this.byKid.values()].map((k) => k.unit).filter(match));
    for (const unit of units) {
      this.doomed.add(unit);
      this.byUnit.delete(unit);
    }
    // their keys not stored yet never will be: what those sealed is purged with the rest
    for (const k of this.unflushed) if (units.has(k.unit)) this.local.delete(k.kid);
    this.unflushed = this.unflushed.filter((k) => !units.has(k.unit));
    return [...units];
  }

  all(): DataKey[] {
    return [...this.byKid.values()];
  }

  /** Keys from an export: inserted with the next group (or import) unless held. */
  adopt(keys: readonly DataKey[]): number {
    const fresh = keys.filter((k) => !this.byKid.has(k.kid));
    for (const k of fresh) {
      this.byKid.set(k.kid, k);
      this.unflushed.push(k);
      this.local.add(k.kid);
    }
    return fresh.length;
  }

  // --- what the event log calls ---

  /** Every key in the table (at open). */
  async load(): Promise<void> {
    await this.readNew(this.db);
  }

  /**
   * Before this node learns of events from..to (exclusive..inclusive) other nodes committed: read
   * the keys added since, and when a purge is among the events, drop the keys its namespaces lost.
   */
  async learn(db: Queryable, from: number, to: number): Promise<void> {
    // one round trip (literal numbers: a multi-statement query takes no parameters)
    const [added, purged] = (await db.query(
      `${this.newKeysSql()}; SELECT ns, body FROM ${this.eventsTable} WHERE type = 'purged' AND seq > ${Math.trunc(from)} AND seq <= ${Math.trunc(to)}`,
    )) as unknown as [pg.QueryResult<KeyRow>, pg.QueryResult<{ ns: string; body: Buffer }>];
    this.take(added.rows);
    if (purged.rows.length === 0) return;
    // only the keys those purges may have deleted are looked up, not every key of their namespaces:
    // a memory purge read each node's whole namespace of keys (one per memory) inside the append lock
    const doomedBy = purged.rows.map((r) => purgedUnits(r.ns, decodeBody(r.body).data));
    const candidates = [...this.byKid.values()].filter((k) => !this.local.has(k.kid) && doomedBy.some((doomed) => doomed(k.unit))).map((k) => k.kid);
    if (candidates.length === 0) return;
    const kept = new Set((await db.query<{ kid: string }>(`SELECT kid FROM ${this.table} WHERE kid = ANY($1::text[])`, [candidates])).rows.map((r) => r.kid));
    this.drop(candidates.filter((kid) => !kept.has(kid)));
  }

  /**
   * What a group's transaction writes: the keys made since the last group, and — when the group
   * appends a `purged` event — the deletion of the keys the purge named. Called once per group.
   */
  keysForGroup(group: readonly (readonly ValidatedEvent[])[], escape: (text: string) => string): KeysInGroup {
    const inserting = this.unflushed;
    this.unflushed = [];
    const purging = group.some((events) => events.some((e) => e.type === 'purged')) ? [...this.doomed] : [];
    const statements: string[] = [];
    // the deletion first: keys made for a purged unit since the purge (new writes) are inserted after it and stay
    if (purging.length > 0) statements.push(`DELETE FROM ${this.table} WHERE unit IN (${purging.map(escape).join(',')})`);
    if (inserting.length > 0) {
      const values = inserting.map((k) => `(${escape(k.kid)},${escape(nsOf(k.unit))},${escape(k.unit)},'\\x${k.key.toString('hex')}')`);
      statements.push(`INSERT INTO ${this.table} (kid, ns, unit, key) VALUES ${values.join(',')} ON CONFLICT (kid) DO NOTHING`);
    }
    return {
      sql: statements.join('; '),
      committed: () => {
        for (const k of inserting) this.local.delete(k.kid);
        const units = new Set(purging);
        const kept = new Set([...inserting.map((k) => k.kid), ...this.local]);
        for (const unit of purging) this.doomed.delete(unit);
        this.drop([...this.byKid.values()].filter((k) => units.has(k.unit) && !kept.has(k.kid)).map((k) => k.kid));
      },
      failed: () => {
        this.unflushed = [...inserting, ...this.unflushed]; // kept for the next group: never a key in use that is not stored
      },
    };
  }

  /**
   * The refusal each write of `group` gets because it was sealed with a key a purge deleted since
   * (undefined for a write that may go on). Only looked at once a key was dropped.
   */
  staleWrites(group: readonly (readonly ValidatedEvent[])[]): (KiokuError | undefined)[] {
    if (!this.dropped) return group.map(() => undefined);
    return group.map((events) => {
      const lost = events.flatMap((e) => kidsIn(e.data)).filter((kid) => !this.byKid.has(kid));
      if (lost.length === 0) return undefined;
      return new KiokuError(
        'KIOKU_SEAL_KEY_PURGED',
        'this write was sealed with the data key of an item or session that was purged meanwhile (on this or another node): nothing was written; write it again',
        { details: { kids: [...new Set(lost)] } },
      );
    });
  }

  private hold(k: DataKey): void {
    this.byKid.set(k.kid, k);
    this.byUnit.set(k.unit, k);
  }

  private drop(kids: readonly string[]): void {
    for (const kid of kids) {
      const k = this.byKid.get(kid);
      if (!k) continue;
      this.byKid.delete(kid);
      if (this.byUnit.get(k.unit)?.kid === kid) this.byUnit.delete(k.unit);
      this.dropped = true;
    }
  }

  private newKeysSql(): string {
    return `SELECT id, kid, unit, key FROM ${this.table} WHERE id > ${this.lastId} ORDER BY id`;
  }

  private async readNew(db: Queryable): Promise<void> {
    this.take((await db.query<KeyRow>(this.newKeysSql())).rows);
  }

  private take(rows: readonly KeyRow[]): void {
    for (const row of rows) {
      this.lastId = Math.max(this.lastId, Number(row.id));
      // a key of a unit this node's purge is deleting is not taken back
      if (this.doomed.has(row.unit) || this.byKid.has(row.kid)) continue;
      const k: DataKey = { kid: row.kid, unit: row.unit, key: row.key };
      this.byKid.set(k.kid, k);
      if (!this.byUnit.has(k.unit)) this.byUnit.set(k.unit, k);
    }
  }
}
