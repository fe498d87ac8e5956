// kioku status [--data DIR] [--json]   — is the library's service running: where, which pid, since
// when, who started it, and whether it answers. Exit 0 running, 1 not running (or not answering).
import type { PathOverrides } from '../../src/config.js';
import { requestKioku } from '../../src/client.js';
import { resolveLibrary, serveHint, stopHint, type Library } from '../../src/library.js';
import { EXIT, emit, type OutputOptions } from '../cli-util.js';

export type StatusFlags = OutputOptions & PathOverrides;

export interface ServiceStatus {
  running: boolean;
  /** the service answered /v1/health */
  answers: boolean;
  ready?: boolean;
  url?: string;
  source?: 'KIOKU_URL' | 'run file';
  pid?: number;
  data_dir: string;
  store: string;
  started_by?: string;
  started_at?: string;
  uptime_s?: number;
  idle_shutdown_min?: number;
  /** the user stopped it (kioku stop, Ctrl-C): hook and MCP do not start it */
  stopped?: { at: string; by: string };
  /** the command to start or stop it */
  hint: string;
  problem?: string;
}

export async function serviceStatus(library: Library): Promise<ServiceStatus> {
  const run = library.running;
  const status: ServiceStatus = {
    running: Boolean(library.url),
    answers: false,
    data_dir: library.dataDir,
    store: library.store.kind === 'leveldb' ? 'leveldb' : library.store.display,
    hint: library.url ? stopHint(library) : serveHint(library),
    ...(library.url ? { url: library.url } : {}),
    ...(library.source ? { source: library.source } : {}),
    ...(library.stopped ? { stopped: { at: library.stopped.at, by: library.stopped.by } } : {}),
  };
  if (run && library.source === 'run file') {
    status.pid = run.pid;
    status.started_at = run.started_at;
    status.uptime_s = Math.max(0, Math.round((Date.now() - Date.parse(run.started_at)) / 1000));
    status.started_by = run.started_by ?? 'user';
    if (run.idle_shutdown_min) status.idle_shutdown_min = run.idle_shutdown_min;
  }
  if (library.url) {
    try {
      const health = await requestKioku<{ ready?: boolean; uptime_s?: number }>(library.url, '/v1/health', { method: 'GET', timeoutMs: 3_000 });
      status.answers = true;
      status.ready = health.ready === true;
      if (status.uptime_s === undefined && typeof health.uptime_s === 'number') status.uptime_s = health.uptime_s;
    } catch (err) {
      status.problem = `${library.url} does not answer: ${err instanceof Error ? err.message : String(err)}`;
    }
  }
  return status;
}

export async function statusCommand(flags: StatusFlags): Promise<number> {
  const library = resolveLibrary(flags);
  const s = await serviceStatus(library);
  emit(flags, () => describeStatus(s), s);
  return s.running && s.answers ? EXIT.ok : EXIT.problem;
}

function describeStatus(s: ServiceStatus): string {
  if (!s.running) {
    const why = s.stopped ? `stopped (${s.stopped.by} at ${s.stopped.at}); the hook and MCP leave it stopped` : 'no service runs';
    return `Kioku is not running for ${s.data_dir}: ${why}.\n  start it: ${s.hint}`;
  }
  const lines = [
    s.source === 'KIOKU_URL'
      ? `Kioku at ${s.url} (KIOKU_URL): ${s.answers ? (s.ready ? 'answers, ready' : 'answers, still opening the library') : 'does not answer'}`
      : `Kioku is running for ${s.data_dir}: ${s.answers ? (s.ready ? 'answers, ready' : 'answers, still opening the library') : 'does not answer'}`,
    `  url         ${s.url}`,
  ];
  if (s.pid !== undefined) lines.push(`  pid         ${s.pid}`);
  if (s.source !== 'KIOKU_URL') lines.push(`  data        ${s.data_dir}`, `  store       ${s.store}`);
  if (s.started_at) lines.push(`  started     ${s.started_at} by ${s.started_by}${s.uptime_s !== undefined ? ` (up ${duration(s.uptime_s)})` : ''}`);
  else if (s.uptime_s !== undefined) lines.push(`  up          ${duration(s.uptime_s)}`);
  if (s.idle_shutdown_min) lines.push(`  idle stop   after ${s.idle_shutdown_min} min without a request`);
  if (s.problem) lines.push(`  problem     ${s.problem}`);
  if (s.source !== 'KIOKU_URL') lines.push(`  stop it     ${s.hint}`);
  return lines.join('\n');
}

function duration(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7_200) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.round(seconds / 3_600)} h`;
  return `${Math.round(seconds / 86_400)} days`;
}
