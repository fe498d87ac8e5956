// The PostgreSQL event store: one append-only table holding the same frames as the LevelDB
// log (prev, hash and the exact msgpack body), so verify, anchors, rebuild and replay work
// unchanged. Several nodes append to one table: each commit takes a transaction-scoped
// advisory lock, reads the real head, plans the group with the shared chain rules and
// inserts it; an append is acknowledged after COMMIT. Every node follows the table with
// LISTEN/NOTIFY plus a periodic head read (notifications can be lost; reads cannot). A
// notification is only a hint to read the head now: any role may NOTIFY on the channel, so
// its payload is never trusted (issue 29). Every connection has an 'error' listener: the
// server ending a session (pg_terminate_backend, a restart) is an outage to report, not a crash.
// See docs/architecture.md §chain and docs/deployment.md.
import { EventEmitter } from 'node:events';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { redactCredentials } from '../config.js';
import { KiokuError } from '../errors.js';
import type { LogRecord } from '../events/index.js';
import { GroupCommitStore, follow, hexHead, lastIn, notEmpty, planGroup, type ChainPosition, type PendingWrite } from './chain.js';
import { FRAME_FORMAT, GENESIS_PREV, HASH_BYTES, HEADER_BYTES, decodeBody, seqKey } from './codec.js';
import { inBatches, type ChainFrame } from './transfer.js';
import type { EventStore, FrameRange, Head, ReadOptions, StoreHealth, TailOptions } from './port.js';
import { verifySource, type ChainReport, type ChainSource, type VerifyChainOptions } from './verify.js';
import { keysSchemaStatements, keysTable, schemaStatements, type TableNames } from './postgres-schema.js';
import { PostgresKeyStore, type KeysInGroup } from './postgres-keys.js';

export interface PostgresLogOptions {
  /** postgres:// URL; a `schema` query parameter selects the schema (default public) */
  url: string;
  /** how often the head is read when no notification came (default 250 ms) */
  pollMs?: number;
  /** connections for appends and reads (default 4) */
  poolSize?: number;
  /** create the table, index and triggers when missing (default true; needs CREATE on the schema) */
  createSchema?: boolean;
  onWarning?: (message: string) => void;
}

const READ_CHUNK = 2000;
/** SQLSTATE classes that mean "the database is not there", not "the request was wrong". */
const UNAVAILABLE_STATES = /^(08|57P|53)/;
const UNAVAILABLE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH']);

/** A pooled connection checked out with its own 'error' listener (see checkout). */
interface Checkout {
  client: pg.PoolClient;
  release(broken?: boolean): void;
}

/** A frame's parts as the table stores them. */
interface StoredRow {
  seq: number;
  prev: Buffer;
  hash: Buffer;
  body: Buffer;
  type: string;
  ns: string;
  ts: number;
}

/** The head columns as node-postgres returns them (bigint as text). */
interface HeadRow {
  seq: string;
  hash: Buffer;
  ts: string;
}

function positionOf(row: HeadRow | undefined): ChainPosition {
  return row ? { seq: Number(row.seq), prev: row.hash, ts: Number(row.ts) } : { seq: 0, prev: Buffer.from(GENESIS_PREV), ts: 0 };
}

interface Row {
  seq: string;
  prev: Buffer;
  hash: Buffer;
  body: Buffer;
}

/** The stored frame, rebuilt from its columns byte for byte (format, hash, prev, body). */
function frameOf(row: Row): Buffer {
  return Buffer.concat([Buffer.of(FRAME_FORMAT), row.hash, row.prev, row.body]);
}

/** Which of a row's type/ns/ts columns disagrees with its hashed body, said for verify's report. */
function storedColumnsDiffer(row: { type: string; ns: string; ts: string } | undefined, body: { type: string; ns: string; ts: number }): string | undefined {
  if (!row) return undefined;
  for (const [column, stored, hashed] of [
    ['type', row.type, body.type],
    ['ns', row.ns, body.ns],
    ['ts', row.ts, String(body.ts)],
  ] as const)
    if (stored !== hashed)
      return `the ${column} column says ${JSON.stringify(stored).slice(0, 80)}, the hashed record says ${JSON.stringify(hashed).slice(0, 80)} (the row was changed after it was written)`;
  return undefined;
}

/** A stable 63-bit advisory lock key for a name (lock keys are bigint). */
function lockKey(name: string): string {
  return createHash('sha256').update(name).digest().readBigInt64BE(0).toString();
}

export function isUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | undefined;
  if (!e) return false;
  if (typeof e.code === 'string' && (UNAVAILABLE_STATES.test(e.code) || UNAVAILABLE_ERRNO.has(e.code))) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  return /Connection terminated|connect ECONNREFUSED|Client has encountered a connection error|timeout exceeded when trying to connect|the database system is (starting up|shutting down)/i.test(
    message,
  );
}

/** An error's message with any connection string's password masked (driver messages may quote the URL). */
const messageOf = (err: unknown): string => redactCredentials(err instanceof Error ? err.message : String(err));

function unavailable(err: unknown, what: string, extra: Record<string, unknown> = {}): KiokuError {
  return new KiokuError('KIOKU_STORE_UNAVAILABLE', `the PostgreSQL event store cannot be reached (${what}): ${messageOf(err)}`, {
    cause: err,
    details: extra,
  });
}

/** Split `?schema=` off a URL (node-postgres would pass unknown parameters to the server). */
function parseUrl(url: string): { connectionString: string; schema: string } {
  const u = new URL(url);
  const schema = u.searchParams.get('schema') ?? 'public';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new KiokuError('KIOKU_USAGE', `schema "${schema.slice(0, 63)}" must be a lower-case SQL identifier`);
  u.searchParams.delete('schema');
  return { connectionString: u.toString(), schema };
}

export class PostgresEventLog extends GroupCommitStore implements EventStore {
  readonly kind = 'postgres' as const;
  private readonly pool: pg.Pool;
  private readonly names: TableNames;
  private readonly lock: string;
  private readonly options: PostgresLogOptions;
  private readonly connectionString: string;
  /** the highest committed position this node knows of (its own commits, notifications, head reads) */
  private known: ChainPosition = { seq: 0, prev: Buffer.from(GENESIS_PREV), ts: 0 };
  private readonly commits = new EventEmitter().setMaxListeners(0);
  private listener: pg.Client | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  /** a notification came while a head read was under way: read again when it ends */
  private hinted = false;
  /** a LISTEN connection being opened (close() waits for it so no connection outlives the log) */
  private listening: Promise<void> | undefined;
  private connected = true;
  private disconnectedSince: number | undefined;
  private tableHead = 0;
  private lastError: string | undefined;
  private readonly roles = new Set<string>();
  /**
   * The data keys of sealing, in the table beside the events (issue 33, postgres-keys.ts); undefined
   * for a library made before that table whose role may not create it (`kioku store init` adds it).
   */
  dataKeys: PostgresKeyStore | undefined;

  private constructor(options: PostgresLogOptions) {
    super();
    this.options = options;
    const { connectionString, schema } = parseUrl(options.url);
    this.connectionString = connectionString;
    this.names = { schema, table: `"${schema}".kioku_events`, channel: `kioku_events_${schema}` };
    this.lock = lockKey(`kioku:append:${schema}`);
    this.pool = new pg.Pool({ connectionString, max: options.poolSize ?? 4, connectionTimeoutMillis: 3_000, idleTimeoutMillis: 30_000, query_timeout: 15_000 });
    // an idle client losing its server must not crash the process; the next query reports it
    this.pool.on('error', (err) => this.markDown(err));
  }

  /** the table, schema and channel this log uses */
  get tableNames(): TableNames {
    return this.names;
  }

  /** the connection URL without Kioku's own parameters (for an administrator's client) */
  get connectionUrl(): string {
    return this.connectionString;
  }

  static async open(options: PostgresLogOptions): Promise<PostgresEventLog> {
    const log = new PostgresEventLog(options);
    try {
      // the table's existence is checked once, here; polls only read the head
      if (options.createSchema ?? true) await log.ensureSchema();
      else if (!(await log.tableExists()))
        throw new KiokuError('KIOKU_STORE_MISSING', `no Kioku event table ${log.names.table} in this database: run \`kioku store init\``);
      // the head first: the keys read after it cover every event up to it
      const head = await log.readHead();
      await log.openKeys();
      log.advance(head);
      await log.listen();
    } catch (err) {
      await log.pool.end().catch(() => undefined);
      if (err instanceof KiokuError) throw err;
      if (isUnavailable(err)) throw unavailable(err, 'open');
      throw new KiokuError('KIOKU_STORE_UNREADABLE', `the PostgreSQL event store cannot be opened: ${messageOf(err)}`, { cause: err });
    }
    log.schedulePoll();
    return log;
  }

  private async tableExists(): Promise<boolean> {
    const exists = await this.pool.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [this.names.table]);
    return Boolean(exists.rows[0]?.t);
  }

  private async keysTableExists(): Promise<boolean> {
    const exists = await this.pool.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [keysTable(this.names)]);
    return Boolean(exists.rows[0]?.t);
  }

  /**
   * The data keys table, read whole (issue 33). A library made before it gets it when this role may
   * create it; otherwise this node does not seal, and says so (existing plain events read as ever).
   */
  private async openKeys(): Promise<void> {
    if (!(await this.keysTableExists()) && (this.options.createSchema ?? true)) {
      try {
        await this.createSchema(keysSchemaStatements(this.names));
      } catch (err) {
        if ((err as { code?: string }).code !== '42501') throw err;
      }
    }
    if (!(await this.keysTableExists())) {
      this.options.onWarning?.(`no data keys table ${keysTable(this.names)}: content fields are not sealed on this store; run \`kioku store init\` as an administrator`);
      return;
    }
    const keys = new PostgresKeyStore(keysTable(this.names), this.names.table, this.pool);
    await keys.load();
    this.dataKeys = keys;
  }

  private async ensureSchema(): Promise<void> {
    if (await this.tableExists()) return;
    try {
      await this.createSchema(schemaStatements(this.names));
    } catch (err) {
      if ((err as { code?: string }).code === '42501')
        throw new KiokuError(
          'KIOKU_STORE_MISSING',
          `no Kioku event table ${this.names.table}, and this role may not create it: run \`kioku store init\` as an administrator`,
        );
      throw err;
    }
  }

  /** Run `statements` in one transaction, once among nodes starting together. */
  private async createSchema(statements: readonly string[]): Promise<void> {
    const held = await this.checkout('connect');
    const client = held.client;
    try {
      await client.query('BEGIN');
      await client.query(`SELECT pg_advisory_xact_lock(${lockKey(`kioku:schema:${this.names.schema}`)})`);
      for (const statement of statements) await client.query(statement);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      held.release();
    }
  }

  /**
   * Move the known head to `to`, committed by other nodes: the data keys their events were sealed
   * with (and the purges among them) are read first, so every reader that learns of an event can
   * open it, and a node that did not perform a purge forgets the keys it deleted.
   */
  private async learn(db: Pick<pg.Pool, 'query'>, to: ChainPosition): Promise<void> {
    if (to.seq > this.known.seq) await this.dataKeys?.learn(db, this.known.seq, to.seq);
    this.advance(to);
  }

  /** The query for the table's last row (the head), alone or after a lock in one round trip. */
  private get headSql(): string {
    return `SELECT seq, hash, ts FROM ${this.names.table} ORDER BY seq DESC LIMIT 1`;
  }

  /** The table's head (seq 0 when empty). */
  private async readHead(): Promise<ChainPosition> {
    return positionOf((await this.pool.query<HeadRow>(this.headSql)).rows[0]);
  }

  /** Move the known head forward (never back) and tell the tails. */
  private advance(to: ChainPosition): void {
    this.tableHead = Math.max(this.tableHead, to.seq);
    if (to.seq <= this.known.seq) return;
    const from = this.known.seq + 1;
    this.known = to;
    this.commits.emit('commit', { from, to: to.seq });
  }

  private markDown(err: unknown): void {
    if (this.closed) return;
    this.lastError = messageOf(err);
    if (this.connected) {
      this.connected = false;
      this.disconnectedSince = Date.now();
      this.options.onWarning?.(`postgres event store unreachable: ${this.lastError}`);
    }
  }

  private markUp(): void {
    if (!this.connected) this.options.onWarning?.('postgres event store reachable again');
    this.connected = true;
    this.disconnectedSince = undefined;
    this.lastError = undefined;
  }

  // --- following other nodes ---

  /** Open the LISTEN connection unless one is open or opening (two would leak one: a session that outlives close). */
  private listen(): Promise<void> {
    if (this.listener) return Promise.resolve();
    this.listening ??= this.openListener().finally(() => (this.listening = undefined));
    return this.listening;
  }

  private async openListener(): Promise<void> {
    // role-lock queries run on this connection too: bounded like the pool's, so none waits on a silent server
    const client = new pg.Client({ connectionString: this.connectionString, connectionTimeoutMillis: 3_000, query_timeout: 15_000 });
    client.on('error', (err) => {
      this.markDown(err);
      this.dropListener(client);
    });
    client.on('end', () => this.dropListener(client));
    // the payload is not read: any role may NOTIFY on this channel (a forged head froze writes, issue 29)
    client.on('notification', (n) => {
      if (n.channel === this.names.channel) this.hint();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.names.channel}`);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.listener = client;
    this.roles.clear(); // session locks died with the old connection
  }

  private dropListener(client: pg.Client): void {
    if (this.listener !== client) return;
    this.listener = undefined;
    this.roles.clear();
    client.end().catch(() => undefined);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.listen()
        .then(() => this.poll())
        .catch((err: unknown) => {
          this.markDown(err);
          this.scheduleReconnect();
        });
    }, 500);
    this.reconnectTimer.unref();
  }

  private schedulePoll(): void {
    if (this.closed) return;
    this.pollTimer = setTimeout(() => {
      void this.poll().finally(() => this.schedulePoll());
    }, this.options.pollMs ?? 250);
    this.pollTimer.unref();
  }

  /** A commit was announced: read the head from the table (again, if a read is under way and may have missed it). */
  private hint(): void {
    if (this.polling) this.hinted = true;
    else void this.poll();
  }

  /** Read the table head: catches up on lost notifications and tells whether the database answers. */
  private poll(): Promise<void> {
    this.polling ??= (async () => {
      try {
        do {
          this.hinted = false;
          const head = await this.readHead();
          this.markUp();
          await this.learn(this.pool, head);
        } while (this.hinted && !this.closed);
        if (!this.listener) this.scheduleReconnect();
      } catch (err) {
        this.markDown(err);
      } finally {
        this.polling = undefined;
      }
    })();
    return this.polling;
  }

  // --- the port ---

  head(): Head {
    return { seq: this.known.seq, hash: hexHead(this.known.seq, this.known.prev) };
  }

  /**
   * A pooled connection with an 'error' listener for as long as it is checked out: the pool
   * listens only while a connection is idle, and a session the server ends between two queries
   * (pg_terminate_backend, a restart) otherwise emits an unhandled 'error' that kills the process
   * (issue 29: exit 1 within 1–3 rounds, 5 of 5 runs). release(true) when it may be broken.
   */
  private async checkout(what: string): Promise<Checkout> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      this.markDown(err);
      throw unavailable(err, what);
    }
    const onError = (err: Error): void => this.markDown(err);
    client.on('error', onError);
    return {
      client,
      release(broken = false) {
        client.removeListener('error', onError);
        client.release(broken);
      },
    };
  }

  /**
   * Open the group's transaction: BEGIN, the append lock, the real head. A pooled connection the
   * server ended while it sat idle fails here, before anything was planned or written: one more
   * try on a fresh connection makes that a retry, not a refused write.
   */
  private async begin(): Promise<{ held: Checkout; start: ChainPosition }> {
    for (let attempt = 1; ; attempt++) {
      const held = await this.checkout('connect');
      try {
        const begun = (await held.client.query(`BEGIN; SELECT pg_advisory_xact_lock(${this.lock}); ${this.headSql}`)) as unknown as pg.QueryResult<HeadRow>[];
        return { held, start: positionOf(begun[2]?.rows[0]) };
      } catch (err) {
        held.release(true);
        if (attempt >= 2 || !isUnavailable(err)) throw err;
      }
    }
  }

  /** One transaction per group: lock, read the real head, plan, insert, notify, COMMIT. */
  protected async commitGroup(group: PendingWrite[]): Promise<void> {
    let held: Checkout;
    let start: ChainPosition;
    try {
      ({ held, start } = await this.begin());
    } catch (err) {
      const e = this.writeError(err, 'append');
      for (const w of group) w.reject(e);
      return;
    }
    const client = held.client;
    let committing = false;
    let accepted: ReturnType<typeof planGroup>['accepted'] = [];
    let keys: KeysInGroup | undefined;
    try {
      // what other nodes committed is now known here (with their data keys and purges), so a writer refused below decides again at the real head
      await this.learn(client, start);
      const writes = this.refuseStale(group);
      const lastOfType = await this.lastOfTypes(client, writes);
      const plan = planGroup(writes, start, (types, planned) => Math.max(lastIn(planned, types), ...types.map((t) => lastOfType.get(t) ?? 0)), Date.now());
      accepted = plan.accepted;
      if (accepted.length === 0) {
        await client.query('ROLLBACK');
        held.release();
        return;
      }
      const end = plan.end;
      const payload = JSON.stringify({ seq: end.seq, hash: end.prev.toString('hex'), ts: end.ts });
      const rows = plan.records.map((r) => ({ ...r, prev: r.frame.subarray(1 + HASH_BYTES, HEADER_BYTES), body: r.frame.subarray(HEADER_BYTES) }));
      // the data keys the events were sealed with (and a purge's deletions) commit with them
      keys = this.dataKeys?.keysForGroup(
        accepted.map((a) => a.write.events),
        (text) => client.escapeLiteral(text),
      );
      committing = true;
      // insert, announce and commit in one round trip: the lock is held through this and the WAL flush only
      await client.query(`${keys?.sql ? `${keys.sql}; ` : ''}${this.insertStatement(client, rows)}; SELECT pg_notify('${this.names.channel}', '${payload}'); COMMIT`);
      keys?.committed();
      held.release();
      this.markUp();
      for (const { write, appended } of accepted) write.resolve(appended);
      this.advance(end);
    } catch (err) {
      keys?.failed();
      await client.query('ROLLBACK').catch(() => undefined);
      held.release(true); // never reuse a connection in an unknown state
      const e = committing ? this.writeError(err, 'commit', { outcome: 'unknown' }) : this.writeError(err, 'append');
      // writes refused by the plan were rejected already; a second reject is a no-op
      for (const w of group) w.reject(e);
    }
  }

  /** The writes of `group` that may go on: one sealed with a data key a purge deleted meanwhile is refused (postgres-keys.ts). */
  private refuseStale(group: PendingWrite[]): PendingWrite[] {
    if (!this.dataKeys) return group;
    const refusals = this.dataKeys.staleWrites(group.map((w) => w.events));
    return group.filter((w, i) => {
      const refusal = refusals[i];
      if (refusal) w.reject(refusal);
      return !refusal;
    });
  }

  /** What a refused batch is told: the store out of reach (503), or the database's refusal. */
  private writeError(err: unknown, what: string, extra: Record<string, unknown> = {}): KiokuError {
    if (err instanceof KiokuError) return err;
    if (!isUnavailable(err)) return new KiokuError('KIOKU_LOG_WRITE_FAILED', `PostgreSQL refused the batch: ${messageOf(err)}`, { cause: err });
    this.markDown(err);
    return unavailable(err, what, extra);
  }

  /** The last seq of each type a type-scoped expected head in `group` asks about, read under the lock. */
  private async lastOfTypes(client: pg.PoolClient, group: readonly PendingWrite[]): Promise<Map<string, number>> {
    const types = new Set<string>();
    for (const w of group) for (const t of w.expected?.types ?? []) types.add(t);
    const out = new Map<string, number>();
    if (types.size === 0) return out;
    const res = await client.query<{ type: string; last: string }>(
      `SELECT t.type, (SELECT max(seq) FROM ${this.names.table} e WHERE e.type = t.type) AS last FROM unnest($1::text[]) AS t(type)`,
      [[...types]],
    );
    for (const row of res.rows) out.set(row.type, Number(row.last ?? 0));
    return out;
  }

  /** Write an exported chain verbatim into the empty table: one transaction under the append lock, all or nothing. */
  async importChain(frames: AsyncIterable<ChainFrame>): Promise<Head> {
    const held = await this.checkout('connect');
    const client = held.client;
    let last: ChainFrame | undefined;
    // the keys of the export (adopted before the import) go into the table with the chain they open
    const keys = this.dataKeys?.keysForGroup([], (text) => client.escapeLiteral(text));
    try {
      await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${this.lock})`);
      const count = await client.query<{ seq: string | null }>(`SELECT max(seq) AS seq FROM ${this.names.table}`);
      const existing = Number(count.rows[0]?.seq ?? 0);
      if (existing > 0) throw notEmpty(existing);
      last = await inBatches(frames, (batch) => this.insertRows(client, batch));
      const payload = last ? JSON.stringify({ seq: last.seq, hash: last.hash.toString('hex'), ts: last.ts }) : '{}';
      await client.query(`${keys?.sql ? `${keys.sql}; ` : ''}SELECT pg_notify('${this.names.channel}', '${payload}'); COMMIT`);
      keys?.committed();
      held.release();
    } catch (err) {
      keys?.failed();
      await client.query('ROLLBACK').catch(() => undefined);
      held.release(true);
      if (err instanceof KiokuError) throw err;
      if (isUnavailable(err)) throw unavailable(err, 'import');
      throw new KiokuError('KIOKU_LOG_WRITE_FAILED', `PostgreSQL refused the import: ${messageOf(err)}`, { cause: err });
    }
    if (last) this.advance({ seq: last.seq, prev: last.hash, ts: last.ts });
    return this.head();
  }

  /** The rows as one INSERT with literal values (a multi-statement query takes no parameters). */
  private insertStatement(client: pg.PoolClient, rows: readonly StoredRow[]): string {
    const hex = (b: Buffer): string => `'\\x${b.toString('hex')}'`;
    const values = rows.map(
      (r) => `(${r.seq},${hex(r.prev)},${hex(r.hash)},${hex(r.body)},${client.escapeLiteral(r.type)},${client.escapeLiteral(r.ns)},${r.ts})`,
    );
    return `INSERT INTO ${this.names.table} (seq, prev, hash, body, type, ns, ts) VALUES ${values.join(',')}`;
  }

  private async insertRows(
    client: pg.PoolClient,
    rows: readonly { seq: number; prev: Buffer; hash: Buffer; body: Buffer; type: string; ns: string; ts: number }[],
  ): Promise<void> {
    await client.query(
      `INSERT INTO ${this.names.table} (seq, prev, hash, body, type, ns, ts)
       SELECT * FROM unnest($1::bigint[], $2::bytea[], $3::bytea[], $4::bytea[], $5::text[], $6::text[], $7::bigint[])`,
      [
        rows.map((x) => x.seq),
        rows.map((x) => x.prev),
        rows.map((x) => x.hash),
        rows.map((x) => x.body),
        rows.map((x) => x.type),
        rows.map((x) => x.ns),
        rows.map((x) => x.ts),
      ],
    );
  }

  onCommit(listener: (range: { from: number; to: number }) => void): () => void {
    this.commits.on('commit', listener);
    return () => this.commits.off('commit', listener);
  }

  async get(seq: number): Promise<LogRecord | undefined> {
    if (!Number.isSafeInteger(seq) || seq < 1) return undefined;
    const res = await this.query<Row>(`SELECT seq, prev, hash, body FROM ${this.names.table} WHERE seq = $1`, [seq], 'read');
    const row = res.rows[0];
    return row ? this.decode(frameOf(row)) : undefined;
  }

  async *read(options: ReadOptions = {}): AsyncGenerator<LogRecord> {
    for await (const rows of this.rowChunks(options)) for (const row of rows) yield this.decode(frameOf(row));
  }

  async *readFrames(range: FrameRange): AsyncGenerator<readonly Uint8Array[]> {
    for await (const rows of this.rowChunks(range)) yield rows.map(frameOf);
  }

  /** The rows `options` selects, a chunk at a time; the next chunk is fetched while this one is used. */
  private async *rowChunks(options: ReadOptions): AsyncGenerator<Row[]> {
    const to = options.to ?? this.known.seq;
    const types = options.types && options.types.length > 0 ? [...options.types] : undefined;
    let remaining = options.limit ?? Infinity;
    const chunk = (from: number): Promise<Row[]> => {
      const params: unknown[] = [from, to, Math.min(READ_CHUNK, remaining)];
      let where = 'seq >= $1 AND seq <= $2';
      if (types) where += ` AND type = ANY($${params.push(types)}::text[])`;
      if (options.ns !== undefined) where += ` AND ns = $${params.push(options.ns)}`;
      const rows = this.query<Row>(`SELECT seq, prev, hash, body FROM ${this.names.table} WHERE ${where} ORDER BY seq LIMIT $3`, params, 'read').then(
        (r) => r.rows,
      );
      rows.catch(() => undefined); // awaited below; a reader that stops early must not leave it unhandled
      return rows;
    };
    const from = Math.max(1, options.from ?? 1);
    let next: Promise<Row[]> | undefined = from <= to && remaining > 0 ? chunk(from) : undefined;
    while (next) {
      const rows = await next;
      const last = rows.at(-1);
      const more = last !== undefined && rows.length === Math.min(READ_CHUNK, remaining) && Number(last.seq) < to && remaining - rows.length > 0;
      remaining -= rows.length;
      next = more ? chunk(Number(last.seq) + 1) : undefined;
      if (rows.length > 0) yield rows;
    }
  }

  private async query<R extends pg.QueryResultRow>(sql: string, params: unknown[], what: string): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(sql, params);
    } catch (err) {
      if (!isUnavailable(err)) throw err;
      this.markDown(err);
      throw unavailable(err, what);
    }
  }

  async *tail(options: TailOptions = {}): AsyncGenerator<LogRecord> {
    const self = this;
    yield* follow(
      {
        head: () => this.known.seq,
        readFrom: (from) => this.read({ from }),
        get closed() {
          return self.closed;
        },
        commits: this.commits,
      },
      options,
    );
  }

  /**
   * The table as verify walks it: the last row as the head, then every row in seq order, each
   * row's type, ns and ts columns checked against its hashed body (filtered reads select on
   * them, so a changed column would hide or misfile a record while the chain still verifies).
   * The walk stops at the head it read first: nodes may append meanwhile (rows past it are not
   * damage, and verify would call them foreign).
   */
  chainSource(): ChainSource {
    let next = 1;
    let last = Number.MAX_SAFE_INTEGER;
    // the rows' columns until verify checks them (it asks for the next chunk before checking this one)
    const columns = new Map<number, { type: string; ns: string; ts: string }>();
    return {
      readHead: async () => {
        const head = await this.readHead();
        last = head.seq;
        return head.seq === 0 ? undefined : JSON.stringify({ seq: head.seq, hash: head.prev.toString('hex'), ts: head.ts });
      },
      nextChunk: async (size) => {
        const res = await this.pool.query<Row & { type: string; ns: string; ts: string }>(
          `SELECT seq, prev, hash, body, type, ns, ts FROM ${this.names.table} WHERE seq >= $1 AND seq <= $3 ORDER BY seq LIMIT $2`,
          [next, size, last],
        );
        for (const row of res.rows) columns.set(Number(row.seq), { type: row.type, ns: row.ns, ts: row.ts });
        const chunk = res.rows.map((row): [string, Uint8Array] => [seqKey(Number(row.seq)), frameOf(row)]);
        if (res.rows.length > 0) next = Number((res.rows[res.rows.length - 1] as Row).seq) + 1;
        return chunk;
      },
      checkStored: (seq, body) => {
        const row = columns.get(seq);
        columns.delete(seq);
        try {
          return storedColumnsDiffer(row, decodeBody(body));
        } catch {
          return 'record body does not decode';
        }
      },
      close: async () => undefined,
    };
  }

  verify(options: VerifyChainOptions = {}): Promise<ChainReport> {
    return verifySource(this.chainSource(), options);
  }

  health(): StoreHealth {
    return {
      kind: this.kind,
      connected: this.connected,
      node_head: this.known.seq,
      table_head: this.tableHead,
      replication_lag: Math.max(0, this.tableHead - this.known.seq),
      ...(this.disconnectedSince !== undefined ? { disconnected_ms: Date.now() - this.disconnectedSince } : {}),
      ...(this.lastError ? { error: this.lastError } : {}),
      where: this.options.url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@'),
    };
  }

  /**
   * Whether this node holds `role` among all nodes on the table (a session advisory lock on
   * the listening connection: it passes to another node when this one dies or disconnects).
   */
  async holdsRole(role: string): Promise<boolean> {
    if (this.roles.has(role)) return true;
    const client = this.listener;
    if (!client || this.closed) return false;
    try {
      const res = await client.query<{ got: boolean }>(`SELECT pg_try_advisory_lock(${lockKey(`kioku:role:${this.names.schema}:${role}`)}) AS got`);
      if (res.rows[0]?.got && this.listener === client) this.roles.add(role);
    } catch (err) {
      this.markDown(err);
    }
    return this.roles.has(role);
  }

  async exclusive<T>(name: string, task: () => Promise<T>): Promise<T> {
    // the connection is held through the task: a session ended meanwhile must be heard, not crash the process
    const held = await this.checkout('connect');
    const client = held.client;
    const key = lockKey(`kioku:lock:${this.names.schema}:${name}`);
    let locked = false;
    try {
      const res = (await client.query(`SELECT pg_advisory_lock(${key}); ${this.headSql}`)) as unknown as pg.QueryResult<HeadRow>[];
      locked = true;
      await this.learn(client, positionOf(res[1]?.rows[0]));
    } catch (err) {
      held.release(true);
      if (!isUnavailable(err)) throw err;
      this.markDown(err);
      throw unavailable(err, 'lock');
    }
    try {
      return await task();
    } finally {
      if (locked) {
        // a session lock: released here, or by the server when this connection dies
        await client.query(`SELECT pg_advisory_unlock(${key})`).then(
          () => held.release(),
          () => held.release(true),
        );
      }
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.settled();
    clearTimeout(this.pollTimer);
    clearTimeout(this.reconnectTimer);
    await this.polling;
    await this.listening?.catch(() => undefined); // a reconnect under way ends its own connection once closed
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    await this.pool.end().catch(() => undefined);
    this.commits.emit('close');
  }
}
