// The facade over HTTP: the same calls as LocalKioku, answered by a running server.
// Bodies are the wire schemas (src/wire.ts); errors come back as the core's typed
// KiokuError (src/client.ts); the bearer token goes to that server only, never across
// a redirect. The server resolves the namespace from the token, so `access` is not sent.
// With `relocate` (the service of a local data dir), a lost service is found again — or
// started — and the call sent once more where a repeat cannot write twice.
import type { Agent } from 'node:http';
import { keepAliveAgent, requestKioku, TransportError } from './client.js';
import { isKiokuError, KiokuError } from './errors.js';
import type { RevealedSecret } from './privacy/index.js';
import type {
  Access,
  ArtifactsAnswer,
  AssetAnswer,
  AssetRegisteredAnswer,
  AudienceAnswer,
  ColdAnswer,
  CompleteTurnAnswer,
  ContextAnswer,
  DocumentAnswer,
  EvidenceAnswer,
  ForgetAnswer,
  PurgeAnswer,
  IngestStatus,
  ItemsAnswer,
  Kioku,
  MemoryWriteAnswer,
  PipelineJobs,
  PipelineJobsInput,
  PipelineSnapshot,
  PipelineSnapshotInput,
  RelatedAnswer,
  RelationsAnswer,
  SessionAnswer,
  StatsAnswer,
  SupersedeAnswer,
  TurnAnswer,
} from './kioku.js';
import type { ImportSummary } from './knowledge/importer.js';
import type { OrgAnswer } from './knowledge/org-answer.js';
import type { OrgChangeAnswer } from './knowledge/org-decide.js';
import type { OrgChangeInput } from './wire.js';
import type { ActivityAnswer, ActivityInput, UsageAnswer } from './api/activity.js';
import type { ImportItemsAnswer } from './knowledge/import-items.js';
import type { LogRecord } from './events/index.js';
import type { VerifyReport } from './log/index.js';
import type { BackupPoint, LogFramesAnswer, LogStatsAnswer } from './operations.js';
import type { ListAnswer } from '../projections/records/listing.js';
import type { AckAnswer, InboxAnswer, NotifyAnswer, OutboxAnswer } from './api/notices.js';
import type { AckInput, InboxInput, NotifyInput } from './wire.js';
import type { DeliveryReport, RecallPacket, ReplayReport } from './recall/index.js';
import type { LifecycleReport } from './recall/lifecycle.js';
import type { LifecycleRunInput } from './wire.js';
import type {
  AssetInput,
  AudienceInput,
  EpisodeInput,
  ItemsInput,
  ListInput,
  ImportItemsInput,
  RevealSecretInput,
  JobEventInput,
  ReplayInput,
  CompleteTurnInput,
  ForgetInput,
  PurgeInput,
  ImportInput,
  OpenSessionInput,
  RecallInput,
  StartTurnInput,
  SupersedeInput,
  WriteMemoriesInput,
  AssetQueryInput,
  ColdInput,
  DeliveryReportInput,
  InNamespaceInput,
  LogFramesInput,
  RelatedInput,
  VerifyLogInput,
} from './wire.js';

export interface RemoteOptions {
  /** bearer token (default: none) */
  token?: string | undefined;
  /** per request (default 120 s: a recall may wait for the judge) */
  timeoutMs?: number;
  /** keep connections open between calls (a long-lived client such as kioku mcp); default off */
  keepAlive?: boolean;
  /**
   * After a lost connection: the URL of the service now (read the run file again, or start one).
   * Given for the service of a local data dir only; a KIOKU_URL never wanders to another server.
   */
  relocate?: (failedUrl: string) => Promise<string>;
  /**
   * How long a call waits, at most, for a service that is not serving yet — opening its store
   * (503 KIOKU_NOT_READY), stopping for a restart (503 KIOKU_SHUTTING_DOWN), or not listening yet
   * (no connection made) — before it answers that error. Nothing of such a call was done, so any
   * call may be sent again. Default 0: answer at once (kioku mcp waits: src/connect.ts).
   */
  readyWaitMs?: number;
}

/**
 * When a call may be sent again after its service was lost: `read` always (it changes nothing a
 * repeat could double), `idempotent` always (the same body again appends nothing), `write` only
 * when the request certainly never reached a server (no connection was made).
 */
type Repeat = 'read' | 'idempotent' | 'write';

const path = (id: string): string => encodeURIComponent(id);
const query = (q: Record<string, string | number | undefined>): string => {
  const entries = Object.entries(q).filter((e): e is [string, string | number] => e[1] !== undefined);
  return entries.length ? `?${new URLSearchParams(entries.map(([k, v]): [string, string] => [k, String(v)])).toString()}` : '';
};

function unreachable(url: string, err: unknown): KiokuError {
  // unreachable, timed out, redirected (never followed: it could carry the token elsewhere), or not HTTP at all
  const cause = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
  return new KiokuError('KIOKU_SERVICE_UNAVAILABLE', `no Kioku service answers at ${url} (${cause})`, { cause: err, details: { url } });
}

/** An answer that says the service did nothing with the call: it is opening, stopping, or took no connection. */
function notServingYet(err: unknown): err is KiokuError {
  if (isKiokuError(err, 'KIOKU_NOT_READY') || isKiokuError(err, 'KIOKU_SHUTTING_DOWN')) return true;
  return isKiokuError(err, 'KIOKU_SERVICE_UNAVAILABLE') && err.cause instanceof TransportError && !err.cause.sent;
}

/**
 * An answer worth waiting out: the service is not serving yet, or — for a call a repeat cannot
 * double (a read, an idempotent write) — the connection was lost under it (the service died
 * mid-call and restarts): sent again, such a call is answered as if the service had never gone.
 */
function worthWaiting(err: unknown, repeat: Repeat): err is KiokuError {
  if (notServingYet(err)) return true;
  return repeat !== 'write' && isKiokuError(err, 'KIOKU_SERVICE_UNAVAILABLE') && err.cause instanceof TransportError && err.cause.lost;
}

function notWaited(err: KiokuError, ms: number): KiokuError {
  return new KiokuError(err.code, `${err.message} (not waited for: the service did not serve during the last call's wait of ${ms} ms)`, {
    cause: err,
    details: { ...err.details, waited_ms: 0 },
  });
}

function waited(err: KiokuError, ms: number): KiokuError {
  return new KiokuError(err.code, `${err.message} (waited ${ms} ms for the service to serve)`, { cause: err, details: { ...err.details, waited_ms: ms } });
}

/** A memory write is the same write again when every memory names its id (an identical repeat appends nothing). */
function memoryWriteRepeat(input: WriteMemoriesInput): Repeat {
  const memories = (input as { memories?: unknown }).memories;
  return Array.isArray(memories) && memories.length > 0 && memories.every((m) => typeof (m as { id?: unknown } | null)?.id === 'string')
    ? 'idempotent'
    : 'write';
}

export class RemoteKioku implements Kioku {
  readonly mode = 'remote' as const;

  private readonly agent: Agent | undefined;
  private current: string;
  /**
   * How long the last call waited for a service that never served (ms): until a call is answered,
   * later calls are not held again. A service that is down, not restarting (a wrong KIOKU_URL, a
   * host that does not resolve), costs an agent one wait, not one per tool call.
   */
  private waitedInVain: number | undefined;

  constructor(
    url: string,
    private readonly options: RemoteOptions = {},
  ) {
    this.current = url;
    this.agent = options.keepAlive ? keepAliveAgent() : undefined;
  }

  /** the service calls go to (it changes when a lost service is found again) */
  get url(): string {
    return this.current;
  }

  private send<T>(url: string, method: 'GET' | 'POST', route: string, body?: unknown): Promise<T> {
    return requestKioku<T>(url, route, {
      method,
      ...(body !== undefined ? { body } : {}),
      token: this.options.token,
      timeoutMs: this.options.timeoutMs ?? 120_000,
      ...(this.agent ? { agent: this.agent } : {}),
    });
  }

  /** One call, sent again while the service is not serving yet (or lost a read under it), up to readyWaitMs; then its error, saying how long it waited. */
  private async call<T>(method: 'GET' | 'POST', route: string, body?: unknown, repeat: Repeat = method === 'GET' ? 'read' : 'write'): Promise<T> {
    const started = Date.now();
    const bound = this.options.readyWaitMs ?? 0;
    const held = this.waitedInVain;
    for (let pause = 100; ; pause = Math.min(pause * 2, 1_000)) {
      try {
        const answer = await this.callOnce<T>(method, route, body, repeat);
        this.waitedInVain = undefined;
        return answer;
      } catch (err) {
        if (!worthWaiting(err, repeat)) throw err;
        // a service that answers 503 is there, opening or stopping: always worth the wait
        const answering = isKiokuError(err, 'KIOKU_NOT_READY') || isKiokuError(err, 'KIOKU_SHUTTING_DOWN');
        const skip = held !== undefined && !answering;
        const left = (skip ? started : started + bound) - Date.now();
        if (left > 0) {
          await new Promise((r) => setTimeout(r, Math.min(pause, left)));
          continue;
        }
        if (skip) throw notWaited(err, held);
        if (bound === 0) throw err;
        if (!answering) this.waitedInVain = Date.now() - started;
        throw waited(err, Date.now() - started);
      }
    }
  }

  private async callOnce<T>(method: 'GET' | 'POST', route: string, body: unknown, repeat: Repeat): Promise<T> {
    const url = this.current;
    try {
      return await this.send<T>(url, method, route, body);
    } catch (err) {
      if (isKiokuError(err)) throw err;
      if (!this.options.relocate || !(err instanceof TransportError) || !err.lost) throw unreachable(url, err);
      let next: string;
      try {
        next = await this.options.relocate(url);
      } catch (cause) {
        throw isKiokuError(cause) ? cause : unreachable(url, cause);
      }
      this.current = next;
      if (repeat === 'write' && err.sent)
        throw new KiokuError(
          'KIOKU_SERVICE_UNAVAILABLE',
          `the service at ${url} went away during the call, which may or may not have been done; ${next === url ? 'it answers again' : `the service is now at ${next}`} (a memory write with ids is safe to repeat)`,
          { cause: err, details: { url, outcome: 'unknown' } },
        );
      try {
        return await this.send<T>(next, method, route, body);
      } catch (again) {
        throw isKiokuError(again) ? again : unreachable(next, again);
      }
    }
  }

  openSession(input: OpenSessionInput, _access?: Access) {
    return this.call<SessionAnswer>('POST', '/v1/sessions/open', input, input.session_id ? 'idempotent' : 'write');
  }
  startTurn(input: StartTurnInput, _access?: Access) {
    return this.call<TurnAnswer>('POST', '/v1/turns/start', input);
  }
  completeTurn(turnId: string, input: CompleteTurnInput, _access?: Access) {
    return this.call<CompleteTurnAnswer>('POST', `/v1/turns/${path(turnId)}/complete`, input, 'idempotent');
  }
  recall(input: RecallInput, _access?: Access) {
    return this.call<RecallPacket>('POST', '/v1/recall', input, 'read').then((p) => this.echoed(input, p));
  }
  context(input: RecallInput, _access?: Access) {
    return this.call<ContextAnswer>('POST', '/v1/context', input, 'read').then((p) => this.echoed(input, p));
  }
  candidates(input: RecallInput, _access?: Access) {
    return this.call<RecallPacket>('POST', '/v1/candidates/query', input, 'read').then((p) => this.echoed(input, p));
  }

  /** A service that drops the conversation or the options (an older or a foreign one) would answer a different question: refuse its answer. */
  private echoed<P extends RecallPacket>(input: RecallInput, packet: P): P {
    const dropped =
      typeof packet !== 'object' || packet === null || !Array.isArray(packet.records)
        ? 'a recall packet'
        : input.options && (typeof packet.options !== 'object' || packet.options === null)
          ? 'the options'
          : input.conversation?.length && typeof packet.conversation_messages !== 'number'
            ? 'the conversation'
            : undefined;
    if (dropped)
      throw new KiokuError('KIOKU_SERVICE_UNAVAILABLE', `the service at ${this.current} did not echo ${dropped}: it is not a Kioku this client can use`, {
        details: { url: this.current },
      });
    return packet;
  }
  writeMemories(input: WriteMemoriesInput, _access?: Access) {
    return this.call<MemoryWriteAnswer>('POST', '/v1/memories', input, memoryWriteRepeat(input));
  }
  forget(id: string, input: ForgetInput, _access?: Access) {
    return this.call<ForgetAnswer>('POST', `/v1/memories/${path(id)}/forget`, input);
  }
  purge(input: PurgeInput, _access?: Access) {
    return this.call<PurgeAnswer>('POST', '/v1/purge', input, 'idempotent');
  }
  supersede(headId: string, input: SupersedeInput, _access?: Access) {
    return this.call<SupersedeAnswer>('POST', `/v1/memories/${path(headId)}/supersede`, input);
  }
  evidence(key: string, _access?: Access) {
    return this.call<EvidenceAnswer>('GET', `/v1/evidence/${path(key)}`);
  }
  importDocuments(input: ImportInput, _access?: Access) {
    return this.call<ImportSummary>('POST', '/v1/import', input, 'idempotent');
  }
  cold(input: ColdInput, _access?: Access) {
    return this.call<ColdAnswer>('GET', `/v1/knowledge/cold${query({ namespace: input.namespace, min_considered: input.min_considered })}`);
  }
  deliveryReport(input: DeliveryReportInput, _access?: Access) {
    return this.call<DeliveryReport>('GET', `/v1/reports/delivery${query({ namespace: input.namespace, days: input.days })}`);
  }
  replay(input: ReplayInput, _access?: Access) {
    return this.call<ReplayReport>('POST', '/v1/replay', input, 'read');
  }
  lifecycleRun(input: LifecycleRunInput, _access?: Access) {
    // a second run after a lost answer decides again against the log: it appends nothing twice
    return this.call<LifecycleReport>('POST', '/v1/lifecycle/run', input, 'idempotent');
  }
  setAudience(id: string, input: AudienceInput, _access?: Access) {
    return this.call<AudienceAnswer>('POST', `/v1/memories/${path(id)}/audience`, input);
  }
  notify(input: NotifyInput, _access?: Access) {
    // a notice's id is derived from what it says: the same note again is the notice sent, appended once
    return this.call<NotifyAnswer>('POST', '/v1/notices', input, 'idempotent');
  }
  inbox(input: InboxInput, _access?: Access) {
    return this.call<InboxAnswer>('GET', `/v1/inbox${query({ namespace: input.namespace, include_acked: input.include_acked ? 1 : undefined })}`);
  }
  ack(noticeId: string, input: AckInput, _access?: Access) {
    return this.call<AckAnswer>('POST', `/v1/notices/${path(noticeId)}/ack`, input, 'idempotent');
  }
  outbox(input: InNamespaceInput, _access?: Access) {
    return this.call<OutboxAnswer>('GET', `/v1/outbox${query({ namespace: input.namespace })}`);
  }
  document(layer: 'card' | 'wiki', id: string, input: InNamespaceInput, _access?: Access) {
    return this.call<DocumentAnswer>('GET', `/v1/${layer === 'card' ? 'cards' : 'wiki/topics'}/${path(id)}${query({ namespace: input.namespace })}`);
  }
  source(id: string, input: InNamespaceInput, _access?: Access) {
    return this.call<DocumentAnswer>('GET', `/v1/sources/${path(id)}${query({ namespace: input.namespace })}`);
  }
  relations(cardId: string, input: InNamespaceInput, _access?: Access) {
    return this.call<RelationsAnswer>('GET', `/v1/cards/${path(cardId)}/relations${query({ namespace: input.namespace })}`);
  }
  items(input: ItemsInput, _access?: Access) {
    return this.call<ItemsAnswer>('POST', '/v1/items/query', input, 'read');
  }
  logEpisode(input: EpisodeInput, _access?: Access) {
    return this.call<{ episode_id: string }>('POST', '/v1/episodes', input);
  }
  registerAsset(input: AssetInput, _access?: Access) {
    return this.call<AssetRegisteredAnswer>('POST', '/v1/assets', input);
  }
  asset(id: string, input: AssetQueryInput, _access?: Access) {
    return this.call<AssetAnswer>(
      'GET',
      `/v1/assets/${path(id)}${query({ namespace: input.namespace, include_content: input.include_content ? 1 : undefined, max_bytes: input.max_bytes })}`,
    );
  }
  org(input: InNamespaceInput, _access?: Access) {
    return this.call<OrgAnswer>('GET', `/v1/org${query({ namespace: input.namespace })}`);
  }
  changeOrg(input: OrgChangeInput, _access?: Access) {
    // deciding again finds the change made: a repeat appends nothing
    return this.call<OrgChangeAnswer>('POST', '/v1/org', input, 'idempotent');
  }
  stats(input: InNamespaceInput, _access?: Access) {
    return this.call<StatsAnswer>('GET', `/v1/stats${query({ namespace: input.namespace })}`);
  }
  related(key: string, input: RelatedInput, _access?: Access) {
    return this.call<RelatedAnswer>('GET', `/v1/evidence/${path(key)}/related${query({ limit: input.limit })}`);
  }
  recordJobEvent(input: JobEventInput, _access?: Access) {
    return this.call<{ seq: number; hash: string }>('POST', '/v1/pipeline/jobs/events', input);
  }
  pipelineSnapshot(input: PipelineSnapshotInput, _access?: Access) {
    return this.call<PipelineSnapshot>('GET', `/v1/pipeline/snapshot${query({ namespace: input.namespace, days: input.days })}`);
  }
  pipelineJobs(input: PipelineJobsInput, _access?: Access) {
    return this.call<PipelineJobs>(
      'GET',
      `/v1/pipeline/jobs${query({ namespace: input.namespace, stage: input.stage, status: input.status, limit: input.limit })}`,
    );
  }
  ingestStatus(_access?: Access) {
    return this.call<IngestStatus>('GET', '/v1/ingest/status');
  }
  artifacts(traceId: string, _access?: Access) {
    return this.call<ArtifactsAnswer>('GET', `/v1/artifacts/${path(traceId)}`);
  }
  activity(input: ActivityInput, _access?: Access) {
    return this.call<ActivityAnswer>('GET', `/v1/activity${query({ namespace: input.namespace, days: input.days, limit: input.limit, before: input.before })}`);
  }
  usage(key: string, _access?: Access) {
    return this.call<UsageAnswer>('GET', `/v1/evidence/${path(key)}/usage`);
  }
  list(input: ListInput, _access?: Access) {
    const many = (v: readonly string[] | undefined): string | undefined => v?.join(',');
    return this.call<ListAnswer>(
      'GET',
      `/v1/items${query({
        namespace: input.namespace,
        layer: many(input.layers),
        kind: many(input.kinds),
        tag: many(input.tags),
        entity: input.entity,
        session_id: input.session_id,
        since: input.since,
        until: input.until,
        text: input.text,
        include_retired: input.include_retired ? 1 : undefined,
        limit: input.limit,
        cursor: input.cursor,
      })}`,
    );
  }
  importItems(input: ImportItemsInput, _access?: Access) {
    return this.call<ImportItemsAnswer>('POST', '/v1/import/items', input, 'idempotent');
  }
  revealSecret(input: RevealSecretInput, _access?: Access) {
    return this.call<RevealedSecret>('POST', '/v1/secrets/reveal', input, 'read');
  }
  verifyLog(input: VerifyLogInput, _access?: Access) {
    return this.call<VerifyReport>('POST', '/v1/log/verify', input, input.write_anchor ? 'write' : 'read');
  }
  logStats(_access?: Access) {
    return this.call<LogStatsAnswer>('GET', '/v1/log/stats');
  }
  logRecord(seq: number, _access?: Access) {
    return this.call<LogRecord>('GET', `/v1/log/records/${seq}`);
  }
  logFrames(input: LogFramesInput, _access?: Access) {
    return this.call<LogFramesAnswer>('GET', `/v1/log/frames${query({ from: input.from, to: input.to, limit: input.limit })}`);
  }
  backupPoint(_access?: Access) {
    return this.call<BackupPoint>('GET', '/v1/log/backup-point');
  }
  /** Nothing to release: the server owns the store. */
  async close(): Promise<void> {}
}
