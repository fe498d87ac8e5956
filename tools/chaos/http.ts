// The front door as the chaos writers use it: POST /v1/memories with a client id, and the read
// back through GET /v1/items (every memory, a page at a time, with its text) and the log's own
// count of memory.written events (GET /v1/log/stats), which catches a retry written twice.
import type { Outcome, Stored } from './ledger.js';

/** A request that takes longer than this is counted as a hang, not waited for. */
export const HANG_MS = 30_000;

/** Why a fetch failed, in a word: refused (nothing listened), reset (the process died under it), timeout. */
export function networkReason(err: unknown): string {
  const e = err as { name?: string; cause?: { code?: string } };
  if (e.name === 'TimeoutError') return 'timeout';
  const code = e.cause?.code ?? '';
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return 'reset';
  return `network ${code || e.name || 'error'}`;
}

/** A status worth a name in the report: `503 KIOKU_NOT_READY`, `507 KIOKU_STORAGE_FULL`, … */
async function refusal(res: Response): Promise<string> {
  const body = (await res.json().catch(() => ({}))) as { error?: { code?: string } };
  return `${res.status} ${body.error?.code ?? ''}`.trim();
}

export async function writeMemory(url: string, id: string, text: string): Promise<Outcome> {
  try {
    const res = await fetch(`${url}/v1/memories`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ memories: [{ id, kind: 'fact', text }] }),
      signal: AbortSignal.timeout(HANG_MS),
    });
    if (res.status !== 200) return { ack: false, why: await refusal(res) };
    const body = (await res.json()) as { ids?: string[] };
    // an acknowledgement names the id it kept
    return body.ids?.includes(id) ? { ack: true } : { ack: false, why: '200 without the id' };
  } catch (err) {
    return { ack: false, why: networkReason(err) };
  }
}

export async function getJson(url: string, path: string, init: RequestInit = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}${path}`, { ...init, signal: AbortSignal.timeout(HANG_MS) });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
}

interface Item {
  id: string;
  text: string;
}

/** Every memory the service lists, with its text, and the log's memory.written count. */
export async function readBack(url: string): Promise<Stored> {
  const texts = new Map<string, string[]>();
  let cursor: string | null = null;
  do {
    const page = await getJson(url, `/v1/items?layer=memory&limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (page.status !== 200) throw new Error(`GET /v1/items answered ${page.status}: ${JSON.stringify(page.body).slice(0, 300)}`);
    for (const item of page.body['items'] as Item[]) texts.set(item.id, [...(texts.get(item.id) ?? []), item.text]);
    cursor = (page.body['next_cursor'] as string | null) ?? null;
  } while (cursor);
  const stats = await getJson(url, '/v1/log/stats');
  const byType = stats.body['by_type'] as Record<string, { count: number }> | undefined;
  return { texts, writtenEvents: stats.status === 200 ? (byType?.['memory.written']?.count ?? 0) : -1 };
}

/** The log head the service stands at (GET /v1/health), or undefined when it does not answer. */
export async function headOf(url: string): Promise<number | undefined> {
  try {
    const h = await getJson(url, '/v1/health');
    const head = (h.body['head'] as { seq?: number } | number | undefined) ?? undefined;
    return typeof head === 'number' ? head : head?.seq;
  } catch {
    return undefined;
  }
}
