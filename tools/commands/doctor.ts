// kioku doctor [--data DIR] [--query Q] [--expect-id ID] [--require-semantic] [--require-judge] [--json]
// Checks a real connection the way an agent makes it: starts `kioku mcp` as a fresh
// subprocess, does the MCP handshake, discovers the tools and runs a real recall. Exit 0 for
// a working connection (degraded included), 1 when it fails.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { resolvePaths, type PathOverrides } from '../../src/config.js';
import { requestKioku } from '../../src/client.js';
import { readRunFile } from '../../src/run-file.js';
import { EXIT, emit, type OutputOptions } from '../cli-util.js';

export interface DoctorFlags extends OutputOptions, PathOverrides {
  query?: string;
  expectId?: string;
  requireSemantic?: boolean;
  requireJudge?: boolean;
}

interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export async function doctorCommand(flags: DoctorFlags): Promise<number> {
  const started = performance.now();
  const dataDir = resolvePaths(flags).dataDir;
  const remote = process.env['KIOKU_URL'];
  const checks: Check[] = [];
  const problems: string[] = [];
  const warnings: string[] = [];
  let packet: Record<string, unknown> | undefined;
  const args = [...process.execArgv, process.argv[1] as string, 'mcp', ...(flags.data ? ['--data', flags.data] : [])];
  const transport = new StdioClientTransport({ command: process.execPath, args, env: process.env as Record<string, string>, stderr: 'pipe' });
  let serviceLog = '';
  transport.stderr?.on('data', (d: Buffer) => (serviceLog += d.toString()));
  const client = new Client({ name: 'kioku-doctor', version: '1' });
  try {
    const t0 = performance.now();
    await client.connect(transport);
    checks.push({ name: 'initialize', ok: true, detail: `${Math.round(performance.now() - t0)} ms` });
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    const hasRecall = names.includes('recall');
    checks.push({ name: 'tools', ok: hasRecall, detail: `${names.length} tools${hasRecall ? '' : ', no recall'}` });
    const t1 = performance.now();
    const result = (await client.callTool({ name: 'recall', arguments: { message: flags.query ?? 'kioku doctor: is the library reachable?' } })) as {
      isError?: boolean;
      structuredContent?: Record<string, unknown>;
      content: { text: string }[];
    };
    if (result.isError) {
      checks.push({ name: 'recall', ok: false, detail: result.content[0]?.text ?? 'error' });
    } else {
      packet = result.structuredContent;
      checks.push({ name: 'recall', ok: true, detail: `${Math.round(performance.now() - t1)} ms` });
    }
  } catch (err) {
    checks.push({ name: checks.length === 0 ? 'initialize' : 'tools', ok: false, detail: (err as Error).message });
  } finally {
    await client.close().catch(() => undefined);
  }
  const records = (packet?.['records'] as { id: string; evidence_key: string }[] | undefined) ?? [];
  const mode = packet?.['retrieval_mode'] as string | undefined;
  const judge = (packet?.['judge'] as { status?: string } | undefined)?.status;
  for (const w of (packet?.['warnings'] as string[] | undefined) ?? []) warnings.push(w);
  if (flags.expectId && !records.some((r) => r.id === flags.expectId || r.evidence_key === flags.expectId))
    problems.push(`expected ${flags.expectId} among the results`);
  if (packet && mode !== 'hybrid') (flags.requireSemantic ? problems : warnings).push(`retrieval mode is ${mode}: the vector lane was not used`);
  if (packet && judge !== 'complete') (flags.requireJudge ? problems : warnings).push(`judge status is ${judge}`);
  const service = remote ? { mode: 'remote', url: remote } : { mode: 'local', data_dir: dataDir, url: readRunFile(dataDir)?.url ?? null };
  const store = service.url ? await storeOf(service.url) : undefined;
  if (store && !store.connected) warnings.push(`the service is cut off from its ${store.kind} store: reads are stale, writes are refused`);
  if (store?.projections_stalled)
    warnings.push(`projections stopped after seq ${store.projections_stalled.after_seq}: ${store.projections_stalled.error} (kioku verify names a damaged record)`);
  if (store?.vector_index?.kind === 'exact')
    warnings.push(
      `vector index: exact scan (${store.vector_index.reason ?? 'hnswlib-node not loaded'}): fine below ~20k items; for HNSW install again letting hnswlib-node build (npm install -g --allow-scripts=hnswlib-node,classic-level,msgpackr-extract …; needs python3, make, g++)`,
    );
  if (store && store.projection_lag > 1000) warnings.push(`projections are ${store.projection_lag} events behind the log (catching up)`);
  const failed = checks.some((c) => !c.ok) || problems.length > 0;
  const status = failed ? 'failed' : warnings.length ? 'degraded' : 'ready';
  const started_service = /started one/.test(serviceLog);
  const report = {
    status,
    service: { ...service, started_by_this_check: started_service },
    store: store ?? null,
    namespace: (packet?.['namespace'] as string | undefined) ?? null,
    retrieval_mode: mode ?? null,
    judge: judge ?? null,
    result_ids: records.slice(0, 10).map((r) => r.evidence_key),
    checks,
    problems,
    warnings,
    elapsed_ms: Math.round(performance.now() - started),
  };
  emit(
    flags,
    () =>
      [
        `kioku doctor: ${status}`,
        `  service: ${service.mode === 'remote' ? service.url : `${service.data_dir} at ${service.url ?? '(none)'}`}${started_service ? ' (started by this check)' : ''}`,
        ...(store
          ? [
              `  store: ${store.kind}${store.where ? ` ${store.where}` : ''} · ${store.connected ? 'connected' : 'DISCONNECTED'} · replication lag ${store.replication_lag} · projection lag ${store.projection_lag}${store.vector_index ? ` · vector index ${store.vector_index.kind}` : ''}`,
            ]
          : []),
        ...checks.map((c) => `  ${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}`),
        `  namespace ${report.namespace ?? '?'} · retrieval ${mode ?? '?'} · judge ${judge ?? '?'} · ${records.length} result(s)`,
        ...problems.map((p) => `  problem: ${p}`),
        ...warnings.map((w) => `  warning: ${w}`),
        `  ${report.elapsed_ms} ms`,
      ].join('\n'),
    report,
  );
  return failed ? EXIT.problem : EXIT.ok;
}

interface StoreReport {
  kind: string;
  where: string | null;
  connected: boolean;
  stale: boolean;
  replication_lag: number;
  projection_lag: number;
  /** why the projections stopped following the log, when they did */
  projections_stalled: { error: string; after_seq: number; since_ms: number } | null;
  /** hnsw, or exact when hnswlib-node did not load (absent from an older service) */
  vector_index: { kind: string; reason?: string } | null;
}

/** The store behind the service, from its /v1/health (the log kind, connection and lags). */
async function storeOf(url: string): Promise<StoreReport | undefined> {
  try {
    const token = process.env['KIOKU_TOKEN'];
    const h = await requestKioku<{
      store?: { kind: string; connected: boolean; where?: string; replication_lag?: number };
      stale?: boolean;
      projection_lag?: number;
      projections_stalled?: StoreReport['projections_stalled'];
      vector_index?: { kind: string; reason?: string };
    }>(url, '/v1/health', { method: 'GET', timeoutMs: 5_000, ...(token ? { token } : {}) });
    if (!h.store) return undefined;
    return {
      kind: h.store.kind,
      where: h.store.where ?? null,
      connected: h.store.connected,
      stale: h.stale ?? false,
      replication_lag: h.store.replication_lag ?? 0,
      projection_lag: h.projection_lag ?? 0,
      projections_stalled: h.projections_stalled ?? null,
      vector_index: h.vector_index ?? null,
    };
  } catch {
    return undefined; // the recall check above already says whether the service answers
  }
}
