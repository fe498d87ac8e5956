// The offline evaluation harness: load the synthetic library into an isolated data
// dir, run every case through a real Kioku server process over HTTP (default) or the
// core in-process, score each packet against its reviewed labels.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbedder, type Embedder, type EmbedderKind } from '../embed/index.js';
import { requestKioku } from '../client.js';
import { KiokuError } from '../errors.js';
import { openKioku } from '../kioku.js';
import { Knowledge, importDirectory } from '../knowledge/index.js';
import { createRecallCore, embeddingIndexer, judgeFromEnv, measurementConfig, openSession, recall, startTurn, type RecallPacket } from '../recall/index.js';
import { caseFileSchema, scoreCase, summarise, type CaseResult, type EvalCase, type EvalSummary } from './cases.js';

export interface EvalOptions {
  caseFiles: string[];
  /** run only these case ids (each must exist) */
  only?: string[];
  libraryDir: string;
  transport: 'http' | 'inproc';
  /** evaluate against an already running server (its own library) instead of a fresh one */
  url?: string;
  /** with `url`: the client token sent as `Authorization: Bearer` (a fresh server has no tokens) */
  token?: string;
  embedder?: EmbedderKind;
  judge?: string;
  /** the judge's own settings (KIOKU_JUDGE_URL, _MODEL, _API_KEY for the LLM judge), passed to the evaluated server */
  judgeEnv?: Record<string, string>;
  /** how to start `kioku serve` in a child process (defaults to this very process's entry) */
  serveCommand?: string[];
  onCase?: (r: CaseResult) => void;
}

export interface EvalReport {
  at: string;
  transport: string;
  embedder: string;
  judge: string;
  summary: EvalSummary;
  results: CaseResult[];
}

export function loadCases(files: readonly string[]): EvalCase[] {
  const cases: EvalCase[] = [];
  for (const f of files) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(f, 'utf8'));
    } catch (cause) {
      throw new KiokuError('KIOKU_INPUT_INVALID', `cases file ${f} is not readable JSON`, { cause, details: { field: 'cases' } });
    }
    const parsed = caseFileSchema.safeParse(raw);
    if (!parsed.success)
      throw new KiokuError('KIOKU_INPUT_INVALID', `cases file ${f}: ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`, {
        details: { field: 'cases' },
      });
    const fileNow = parsed.data.now;
    cases.push(...parsed.data.cases.map((c) => ({ ...c, ...((c.now ?? fileNow) ? { now: c.now ?? fileNow } : {}) })));
  }
  const ids = new Set<string>();
  for (const c of cases) {
    if (ids.has(c.id)) throw new KiokuError('KIOKU_INPUT_INVALID', `case id ${c.id} appears twice`, { details: { field: 'cases' } });
    ids.add(c.id);
  }
  return cases;
}

interface LibraryMemories {
  ns: string;
  memories: unknown[];
}
interface LibraryTrace {
  ns: string;
  session_id: string;
  turn_id: string;
  occurred_at: string;
  query: string;
  answer: string;
}

/** Import the synthetic library (cards, wiki, notes, memories, traces) and embed it. */
export async function loadLibrary(dataDir: string, libraryDir: string, embedderKind: EmbedderKind | undefined): Promise<void> {
  const store = await openKioku({ data: dataDir });
  try {
    const knowledge = new Knowledge(store, 'eval');
    const records = store.projections.views.records;
    for (const kind of ['cards', 'wiki', 'notes'] as const) {
      const summary = await importDirectory(knowledge, records, { kind, dir: join(libraryDir, kind) });
      if (summary.errors.length)
        throw new KiokuError('KIOKU_INPUT_INVALID', `library ${kind}: ${summary.errors.map((e) => `${e.file}: ${e.message}`).join('; ')}`);
    }
    for (const batch of JSON.parse(readFileSync(join(libraryDir, 'memories.json'), 'utf8')) as LibraryMemories[]) {
      await knowledge.writeMemories({ ns: batch.ns, memories: batch.memories });
    }
    for (const t of JSON.parse(readFileSync(join(libraryDir, 'traces.json'), 'utf8')) as LibraryTrace[]) {
      await store.log.append({
        type: 'turn.started',
        ns: t.ns,
        actor: 'eval',
        data: { turn_id: t.turn_id, session_id: t.session_id, query: t.query, occurred_at: t.occurred_at },
      });
      const { seq } = await store.log.append({
        type: 'turn.completed',
        ns: t.ns,
        actor: 'eval',
        data: { turn_id: t.turn_id, session_id: t.session_id, answer: t.answer },
      });
      await store.projections.waitFor(seq);
    }
    const embedder = createEmbedder(embedderKind ? { kind: embedderKind } : {});
    try {
      const job = await embeddingIndexer(store, embedder).run();
      if (job.status === 'failed') throw new KiokuError('KIOKU_EMBEDDER_FAILED', `embedding the library failed: ${job.error}`);
    } finally {
      await embedder.close();
    }
  } finally {
    await store.close();
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Start `kioku serve` in a child process with a clean environment: no inherited credentials. */
async function startChildServer(command: string[], dataDir: string, env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(command[0] as string, [...command.slice(1), 'serve', '--quiet', '--data', dataDir, '--port', String(port)], {
    env: { PATH: process.env['PATH'] ?? '', HOME: dataDir, KIOKU_AUTH_FILE: join(dataDir, 'no-auth.json'), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`server did not become ready: ${err}`)), 60_000);
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
      if (err.includes('kioku: ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}): ${err.slice(-500)}`));
    });
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

/**
 * A running service that wants a token and got none is a usage error before any case runs,
 * not one 401 per case. An unreachable one is left to the cases: each fails as a transport failure.
 */
async function checkService(url: string, token: string | undefined): Promise<void> {
  let health: { auth_required?: boolean };
  try {
    health = await requestKioku(url, '/v1/health', { method: 'GET', timeoutMs: 10_000 });
  } catch {
    return;
  }
  if (health.auth_required && !token)
    throw new KiokuError('KIOKU_UNAUTHORIZED', `the service at ${url} requires a token: set KIOKU_TOKEN to a token for the namespace the cases use`);
}

/** Where one case runs: the running service (--url), a fresh server process on the case's copy of the library, or the core in process. */
interface CaseTarget {
  /** warm the model up with a read-only query (records nothing), so latency is a turn's, not a cold start's */
  warmUp(ns: string): Promise<void>;
  /** open a session and start the case's turn in it */
  startTurn(turn: CaseTurn): Promise<RecallPacket>;
  close(): Promise<void>;
  /** in process: the embedder and judge the core runs with */
  ids?: { embedder: string | undefined; judge: string };
}

interface CaseTurn {
  query: string;
  conversation?: EvalCase['conversation'];
  namespace: string;
}

/** What every case of one run shares. */
interface EvalRun {
  options: EvalOptions;
  libraryData: string;
  /** the evaluated server's or core's settings (embedder, judge) */
  env: Record<string, string>;
  token: string | undefined;
  /** in process: the one model every case's core borrows (loading it for each case cost about a second each); runEval closes it */
  embedder?: Embedder;
}

/** The run's model lent to one case's core: each case keeps its own store and core, its close leaves the model loaded. */
function lentEmbedder(run: EvalRun): Embedder {
  const model = (run.embedder ??= createEmbedder(run.options.embedder ? { kind: run.options.embedder } : {}));
  return {
    get id() {
      return model.id;
    },
    get dim() {
      return model.dim;
    },
    get readsCjk() {
      return model.readsCjk;
    },
    ...(model.maxWordChars !== undefined ? { maxWordChars: model.maxWordChars } : {}),
    init: () => model.init(),
    embed: (texts, options) => model.embed(texts, options),
    close: async () => undefined,
  };
}

/** A service over HTTP; `fresh` is the server process started for this case (warmed up first, stopped after). */
function httpTarget(base: string, token: string | undefined, fresh: ChildProcess | undefined): CaseTarget {
  return {
    warmUp: async (ns) => {
      if (fresh) await requestKioku(base, '/v1/candidates/query', { method: 'POST', body: { query: 'warm up', namespace: ns } });
    },
    startTurn: async (turn) => {
      const { session_id } = await requestKioku<{ session_id: string }>(base, '/v1/sessions/open', {
        method: 'POST',
        body: { agent: 'eval', namespace: turn.namespace },
        token,
      });
      return requestKioku<RecallPacket>(base, '/v1/turns/start', { method: 'POST', body: { ...turn, session_id }, token });
    },
    close: async () => {
      if (!fresh) return;
      const exited = new Promise((r) => fresh.once('exit', r));
      fresh.kill('SIGTERM');
      await exited;
    },
  };
}

/** The core in process over the case's copy of the library. */
async function inprocTarget(caseData: string, run: EvalRun, now: string | undefined): Promise<CaseTarget> {
  const store = await openKioku({ data: caseData });
  const core = createRecallCore(store, {
    embedder: lentEmbedder(run),
    judge: judgeFromEnv(run.env),
    ...(now ? { now: () => new Date(now) } : {}),
  });
  // in process the figure must not depend on machine load: no latency deadlines
  core.config = measurementConfig();
  return {
    warmUp: async (ns) => {
      await recall(core, { query: 'warm up', namespace: ns }, { readOnly: true, namespaces: [ns] });
    },
    startTurn: async (turn) => {
      const { session_id } = await openSession(core, { agent: 'eval', namespace: turn.namespace });
      return startTurn(core, { ...turn, session_id });
    },
    close: async () => (await core.close(), await store.close()),
    ids: { embedder: core.embedder?.id, judge: core.judge.id },
  };
}

/** The case's target: the running service, else a copy of the freshly loaded library served over HTTP or opened in process. */
async function openTarget(c: EvalCase, caseData: string, run: EvalRun): Promise<CaseTarget> {
  const { options } = run;
  if (options.url) return httpTarget(options.url, run.token, undefined);
  cpSync(run.libraryData, caseData, { recursive: true });
  if (options.transport !== 'http') return inprocTarget(caseData, run, c.now);
  const started = await startChildServer(options.serveCommand ?? [process.execPath, ...process.execArgv, process.argv[1] as string], caseData, {
    ...run.env,
    ...(c.now ? { KIOKU_CLOCK: c.now } : {}),
  });
  return httpTarget(started.url, undefined, started.child);
}

/** A case whose turn never came back: a failure, never an empty success. */
function transportFailure(c: EvalCase, err: unknown): CaseResult {
  return {
    id: c.id,
    pass: false,
    failures: [`transport: ${(err as Error).message}`],
    expected_found: 0,
    expected_total: c.expected_ids.length + c.expected_any_ids.length,
    delivered: [],
    delivered_allowed: 0,
    records: [],
    judged: [],
    duplicates: 0,
    retrieval_mode: 'error',
    judge_status: 'error',
    latency_ms: 0,
    error: (err as Error).message,
  };
}

/** One case on its own target, scored; and the in-process core's embedder and judge when it ran there. */
async function runCase(c: EvalCase, caseData: string, run: EvalRun): Promise<{ result: CaseResult; ids?: CaseTarget['ids'] }> {
  let target: CaseTarget | undefined;
  try {
    target = await openTarget(c, caseData, run);
    const ns = c.namespace ?? 'private';
    await target.warmUp(ns);
    const started = performance.now();
    const packet = await target.startTurn({ query: c.query, ...(c.conversation ? { conversation: c.conversation } : {}), namespace: ns });
    return { result: scoreCase(c, packet, performance.now() - started), ids: target.ids };
  } catch (err) {
    return { result: transportFailure(c, err), ids: target?.ids };
  } finally {
    await target?.close();
    rmSync(caseData, { recursive: true, force: true });
  }
}

/** The cases of the files, or only those `only` names (each must exist). */
function selectCases(options: EvalOptions): EvalCase[] {
  const all = loadCases(options.caseFiles);
  const unknown = options.only?.filter((id) => !all.some((c) => c.id === id)) ?? [];
  if (unknown.length) throw new KiokuError('KIOKU_USAGE', `no case with id ${unknown.join(', ')} in ${options.caseFiles.join(', ')}`);
  return options.only ? all.filter((c) => options.only?.includes(c.id)) : all;
}

/**
 * Run every case. Each case gets its own copy of the freshly loaded library (and, over
 * HTTP, its own server process): a case's captured turns, verdicts and usage counts must
 * not leak into the next case's recall.
 */
export async function runEval(options: EvalOptions): Promise<EvalReport> {
  const cases = selectCases(options);
  const work = mkdtempSync(join(tmpdir(), 'kioku-eval-'));
  const env: Record<string, string> = {
    ...(options.embedder ? { KIOKU_EMBEDDER: options.embedder } : {}),
    ...(options.judge ? { KIOKU_JUDGE: options.judge, ...options.judgeEnv } : {}),
  };
  // a misconfigured judge is a usage error before anything starts, not 45 failed cases
  if (!options.url) judgeFromEnv(env);
  else await checkService(options.url, options.token);
  const run: EvalRun = { options, libraryData: join(work, 'library'), env, token: options.url ? options.token : undefined };
  const results: CaseResult[] = [];
  let embedderId = options.embedder ?? 'use-lite-512';
  let judgeId = options.judge ?? 'local';
  try {
    if (!options.url) await loadLibrary(run.libraryData, options.libraryDir, options.embedder);
    for (const [n, c] of cases.entries()) {
      const { result, ids } = await runCase(c, join(work, `case-${n}`), run);
      if (ids) [embedderId, judgeId] = [ids.embedder ?? embedderId, ids.judge];
      results.push(result);
      options.onCase?.(result);
    }
  } finally {
    await run.embedder?.close();
    rmSync(work, { recursive: true, force: true });
  }
  return {
    at: new Date().toISOString(),
    transport: options.url ? `http (${options.url})` : options.transport,
    embedder: embedderId,
    judge: judgeId,
    summary: summarise(cases, results),
    results,
  };
}
