// delivered: which evidence keys were delivered in each session (an item's and its turn
// window's), when, and at which fingerprint — so delivery can ask "delivered in session S since T?" without
// scanning turns. A session id is its namespace's own (src/recall/turns.ts openSession): another
// namespace's session of that id is another conversation, and what it was handed — or what an
// event recorded there names, a window of another namespace's keys — holds nothing back here.
import type { EventData, LogRecord } from '../src/events/index.js';
import { PlainStateProjection } from './projection.js';

/** per namespace and session (`ns\u0000session_id`): key → [ts, fingerprint | null][] */
type DeliveredState = Record<string, Record<string, [number, string | null][]>>;

export class DeliveredProjection extends PlainStateProjection<DeliveredState> {
  readonly name = 'delivered';
  // 3: a window member's recorded version (2: null always, so an edited section seen in a window stayed held back);
  // 2: keyed by namespace and session (1: by session id alone, so one namespace's deliveries held another's back)
  readonly version = 3;
  constructor() {
    super(() => ({}));
  }

  apply(record: LogRecord): void {
    if (record.type !== 'delivery.made') return;
    const d = record.data as EventData<'delivery.made'>;
    if (!d.session_id) return;
    const session = (this.state[sessionKey(record.ns, d.session_id)] ??= {});
    for (const item of d.items) {
      (session[item.evidence_key] ??= []).push([record.ts, item.fingerprint ?? null]);
      // a window's other turns or sections were handed over too, at the versions recorded (older logs: unknown, null)
      (item.window ?? []).forEach((key, i) => {
        if (key !== item.evidence_key) (session[key] ??= []).push([record.ts, item.window_fingerprints?.[i] ?? null]);
      });
    }
  }

  /** Keys delivered in namespace `ns`'s session `sessionId` at or after `since` (ISO; absent = the whole session), with the fingerprints they had. */
  deliveredSince(ns: string, sessionId: string, since?: string): Map<string, (string | null)[]> {
    const from = since ? Date.parse(since) : -Infinity;
    const out = new Map<string, (string | null)[]>();
    for (const [key, deliveries] of Object.entries(this.state[sessionKey(ns, sessionId)] ?? {})) {
      const fps = deliveries.filter(([ts]) => ts >= from).map(([, fp]) => fp);
      if (fps.length) out.set(key, fps);
    }
    return out;
  }
}

const sessionKey = (ns: string, sessionId: string): string => `${ns}\u0000${sessionId}`;
