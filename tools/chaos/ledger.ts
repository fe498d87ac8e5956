// The writers and their ledger of acknowledged writes, shared by every chaos scenario. Each
// writer owns its ids (w<n>-<i>) and gives each a distinct text; it sends an id again, with the
// same text, until it is acknowledged (an unacknowledged write may or may not have landed: a
// repeat with its id appends nothing). Only an acknowledgement goes into the ledger, and at the
// end every id in it must be read back with exactly its text, once.

/** What one attempt came to: acknowledged, or why not (`503 KIOKU_NOT_READY`, `refused`, `timeout`, …). */
export type Outcome = { ack: true } | { ack: false; why: string };

/** Sends one write of `id` with `text`; resolves to its outcome, never rejects. */
export type Send = (writer: number, id: string, text: string) => Promise<Outcome>;

export interface Ledger {
  /** id → the text that was acknowledged for it */
  acked: Map<string, string>;
  /** id → every text acknowledged for it (more than one only where writers race for one id) */
  ackedTexts: Map<string, Set<string>>;
  attempts: number;
  /** not-acknowledged attempts by reason */
  refusals: Record<string, number>;
  /** when each acknowledgement came (ms since the epoch), for recovery times */
  ackTimes: number[];
}

export const newLedger = (): Ledger => ({ acked: new Map(), ackedTexts: new Map(), attempts: 0, refusals: {}, ackTimes: [] });

/** A text no other write has: the writer, the index, and a few words so it reads like a memory. */
export const textOf = (id: string): string => `chaos note ${id}: the nightly deploy passed its checks after one retry`;

export function record(ledger: Ledger, id: string, text: string, outcome: Outcome): void {
  ledger.attempts += 1;
  if (!outcome.ack) {
    ledger.refusals[outcome.why] = (ledger.refusals[outcome.why] ?? 0) + 1;
    return;
  }
  ledger.acked.set(id, text);
  const texts = ledger.ackedTexts.get(id) ?? new Set<string>();
  texts.add(text);
  ledger.ackedTexts.set(id, texts);
  ledger.ackTimes.push(Date.now());
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A random moment around `holdMs` (half to one and a half times it): when the next fault comes. */
export const around = (holdMs: number): number => holdMs * (0.5 + Math.random());

export interface Writers {
  /** stop sending; resolves when every writer has finished its attempt in flight */
  stop(): Promise<void>;
}

/**
 * `count` writers sending continuously: writer w sends the ids `idOf(w, i)` in turn, each again
 * (same text) after `pauseMs` until it is acknowledged. `textFor` defaults to `textOf`.
 */
export function startWriters(
  count: number,
  ledger: Ledger,
  send: Send,
  options: {
    pauseMs?: number;
    idOf?: (w: number, i: number) => string;
    textFor?: (w: number, id: string) => string;
    /** refusals that settle an id for good (another writer's text won it): go on to the next */
    settles?: (why: string) => boolean;
  } = {},
): Writers {
  let running = true;
  const idOf = options.idOf ?? ((w: number, i: number) => `w${w}-${i}`);
  const textFor = options.textFor ?? ((_w: number, id: string) => textOf(id));
  const loops = Array.from({ length: count }, async (_, w) => {
    for (let i = 0; running; ) {
      const id = idOf(w, i);
      const text = textFor(w, id);
      const outcome = await send(w, id, text);
      record(ledger, id, text, outcome);
      if (outcome.ack || options.settles?.(outcome.why)) i += 1;
      else await sleep(options.pauseMs ?? 50);
    }
  });
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** What the store holds for the ledger's ids, as read back through a door. */
export interface Stored {
  /** id → every text listed for it */
  texts: Map<string, string[]>;
  /** memory.written events in the log (the log's own count); -1 when unknown */
  writtenEvents: number;
}

export interface Check {
  acknowledged: number;
  lost: number;
  changed: number;
  duplicates: number;
  /** ids where two different texts were both acknowledged (writers racing for one id) */
  conflicting_acks: number;
  /** a few ids of each kind, for the report */
  examples: { lost: string[]; changed: { id: string; acknowledged: string; stored: string[] }[]; duplicated: string[] };
}

/**
 * Every acknowledged id must be stored, with its acknowledged text, once. Duplicates are ids
 * listed twice plus events beyond one per stored id (a retry that wrote a second event).
 */
export function check(ledger: Ledger, stored: Stored): Check {
  const lost: string[] = [];
  const changed: string[] = [];
  for (const [id, text] of ledger.acked) {
    const got = stored.texts.get(id);
    if (!got?.length) lost.push(id);
    else if (!got.every((t) => (ledger.ackedTexts.get(id) ?? new Set([text])).has(t))) changed.push(id);
  }
  const duplicated = [...stored.texts].filter(([, t]) => t.length > 1).map(([id]) => id);
  const extraEvents = stored.writtenEvents < 0 ? 0 : Math.max(0, stored.writtenEvents - stored.texts.size);
  const conflicting = [...ledger.ackedTexts].filter(([, t]) => t.size > 1).length;
  return {
    acknowledged: ledger.acked.size,
    lost: lost.length,
    changed: changed.length,
    duplicates: duplicated.length + extraEvents,
    conflicting_acks: conflicting,
    examples: {
      lost: lost.slice(0, 5),
      changed: changed.slice(0, 5).map((id) => ({ id, acknowledged: ledger.acked.get(id) as string, stored: stored.texts.get(id) ?? [] })),
      duplicated: duplicated.slice(0, 5),
    },
  };
}

export const median = (xs: number[]): number | null => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.floor(s.length / 2)] as number);
};
