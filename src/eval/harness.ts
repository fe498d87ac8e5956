// The offline evaluation harness: load the synthetic library into an isolated data
// dir, run every case through a real Kioku server process over HTTP (default) or the
// core in-process, score each packet against its reviewed labels.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbedder, type EmbedderKind } from '../embed/index.js';
import { requestKioku } from '../client.js';
import { KiokuError } from '../errors.js';
import { EmbeddingIndexer } from '../indexer/embedding-job.js';
import { openKioku } from '../kioku.js';
import { Knowledge, importDirectory } from '../knowledge/index.js';
import { createRecallCore, judgeFromEnv, measurementConfig, openSession, recall, startTurn, type RecallPacket } from '../recall/index.js';
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
      const job = await new EmbeddingIndexer(store, embedder).run();
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

/**
 * Run every case. Each case gets its own copy of the freshly loaded library (and, over
 * HTTP, its own server process): a case's captured turns, verdicts and usage counts must
 * not leak into the next case's recall.
 */
export async function runEval(options: EvalOptions): Promise<EvalReport> {
  const all = loadCases(options.caseFiles);
  const unknown = options.only?.filter((id) => !all.some((c) => c.id === id)) ?? [];
  if (unknown.length) throw new KiokuError('KIOKU_USAGE', `no case with id ${unknown.join(', ')} in ${options.caseFiles.join(', ')}`);
  const cases = options.only ? all.filter((c) => options.only?.includes(c.id)) : all;
  const work = mkdtempSync(join(tmpdir(), 'kioku-eval-'));
  const libraryData = join(work, 'library');
  const env: Record<string, string> = {
    ...(options.embedder ? { KIOKU_EMBEDDER: options.embedder } : {}),
    ...(options.judge ? { KIOKU_JUDGE: options.judge, ...options.judgeEnv } : {}),
  };
  // a misconfigured judge is a usage error before anything starts, not 45 failed cases
  if (!options.url) judgeFromEnv(env);
  else await checkService(options.url, options.token);
  const token = options.url ? options.token : undefined;
  const results: CaseResult[] = [];
  let embedderId = options.embedder ?? 'use-lite-512';
  let judgeId = options.judge ?? 'local';
  try {
    if (!options.url) await loadLibrary(libraryData, options.libraryDir, options.embedder);
    for (const [n, c] of cases.entries()) {
      let result: CaseResult;
      let child: ChildProcess | undefined;
      let inproc: { core: ReturnType<typeof createRecallCore>; close: () => Promise<void> } | undefined;
      const caseData = join(work, `case-${n}`);
      try {
        let base = options.url ?? ''; // set below for a fresh server; unused in-process
        if (!options.url) {
          cpSync(libraryData, caseData, { recursive: true });
          if (options.transport === 'http') {
            const started = await startChildServer(options.serveCommand ?? [process.execPath, ...process.execArgv, process.argv[1] as string], caseData, {
              ...env,
              ...(c.now ? { KIOKU_CLOCK: c.now } : {}),
            });
            child = started.child;
            base = started.url;
          } else {
            const store = await openKioku({ data: caseData });
            const core = createRecallCore(store, {
              embedder: createEmbedder(options.embedder ? { kind: options.embedder } : {}),
              judge: judgeFromEnv(env),
              ...(c.now ? { now: () => new Date(c.now as string) } : {}),
            });
            // in process the figure must not depend on machine load: no latency deadlines
            core.config = measurementConfig();
            inproc = { core, close: async () => (await core.close(), await store.close()) };
            embedderId = core.embedder?.id ?? embedderId;
            judgeId = core.judge.id;
          }
        }
        const ns = c.namespace ?? 'private';
        // warm the model up with a read-only query (records nothing), so latency is a turn's, not a cold start's
        if (inproc) await recall(inproc.core, { query: 'warm up', namespace: ns }, { readOnly: true, namespaces: [ns] });
        else if (!options.url) await requestKioku(base, '/v1/candidates/query', { method: 'POST', body: { query: 'warm up', namespace: ns } });
        const started = performance.now();
        const turn = { query: c.query, ...(c.conversation ? { conversation: c.conversation } : {}), namespace: ns };
        let packet: RecallPacket;
        if (inproc) {
          const { session_id } = await openSession(inproc.core, { agent: 'eval', namespace: ns });
          packet = await startTurn(inproc.core, { ...turn, session_id });
        } else {
          const { session_id } = await requestKioku<{ session_id: string }>(base, '/v1/sessions/open', {
            method: 'POST',
            body: { agent: 'eval', namespace: ns },
            token,
          });
          packet = await requestKioku<RecallPacket>(base, '/v1/turns/start', { method: 'POST', body: { ...turn, session_id }, token });
        }
        result = scoreCase(c, packet, performance.now() - started);
      } catch (err) {
        // a transport failure is a failure, never an empty success
        result = {
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
      } finally {
        if (child) {
          const exited = new Promise((r) => child?.once('exit', r));
          child.kill('SIGTERM');
          await exited;
        }
        await inproc?.close();
        rmSync(caseData, { recursive: true, force: true });
      }
      results.push(result);
      options.onCase?.(result);
    }
  } finally {
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
