// The notices of a replayed span (issue 34): what members sent each other, what arrived and what
// was signed off, read from the same log range as the replayed turns — one line per notice an
// event names (an arrival names several) — so a replay shows a turn's memories going out to
// colleagues beside the turn itself. Which lines a caller sees is the facade's to say (`visible`,
// the audience policy); a notice about a memory forgotten since shows no text, as everywhere.
import type { EventData, LogRecord } from '../events/index.js';
import { NOTICE_EVENT_TYPES, type Notice, type NoticeKind } from '../knowledge/notices.js';
import { PURGED_TEXT } from '../privacy/index.js';

export { NOTICE_EVENT_TYPES };

/** One notice event of the span, as replay reports it. */
export interface ReplayedNotice {
  at: string;
  event: 'sent' | 'arrived' | 'acked';
  notice_id: string;
  from: string;
  to: string[];
  /** the recipient who looked (arrived) or signed off (acked) */
  member?: string;
  kind?: NoticeKind;
  /** the memory it is about */
  evidence_key?: string;
  /** what it said (sent); absent when that memory has been forgotten since */
  text?: string;
  text_forgotten?: true;
  /** its key was purged (issue 33): the text reads as nothing here */
  text_purged?: true;
  /** the recipient's note when signing off */
  note?: string;
}

/** What a line needs of its notice: who sent it, to whom, about what. */
export interface SentNotice {
  from: string;
  to: readonly string[];
  evidence_key?: string;
}

/** Who may see a notice line: its notice (sender, recipients) and, for an arrival or sign-off, whose it was. */
export type NoticeVisible = (notice: { from: string; to: readonly string[] }, recipient?: string) => boolean;

export interface NoticeReader {
  /** the namespace's notices folded so far (for the sender and recipients of an arrival or sign-off whose sending lies before the span) */
  known: (ns: string) => Readonly<Record<string, Notice>>;
  /** whether the memory a notice is about is forgotten (its text shown nowhere) */
  forgotten: (evidenceKey: string) => boolean;
  visible?: NoticeVisible | undefined;
}

/** The lines of one notice event the caller may see (none for another event type). */
export function noticeLines(r: LogRecord, reader: NoticeReader, sentInSpan: Map<string, SentNotice>): ReplayedNotice[] {
  const at = new Date(r.ts).toISOString();
  const seen = (n: { from: string; to: readonly string[] }, recipient?: string): boolean => reader.visible === undefined || reader.visible(n, recipient);
  if (r.type === 'notice.sent') {
    const d = r.data as EventData<'notice.sent'>;
    sentInSpan.set(d.notice_id, { from: d.from, to: d.to, ...(d.evidence_key !== undefined ? { evidence_key: d.evidence_key } : {}) });
    if (!seen(d)) return [];
    const gone = d.evidence_key !== undefined && reader.forgotten(d.evidence_key);
    return [
      {
        at,
        event: 'sent',
        notice_id: d.notice_id,
        from: d.from,
        to: [...d.to],
        kind: d.kind,
        ...(d.evidence_key !== undefined ? { evidence_key: d.evidence_key } : {}),
        ...(gone ? { text_forgotten: true as const } : d.text === PURGED_TEXT ? { text_purged: true as const } : { text: d.text }),
      },
    ];
  }
  const of = (id: string): SentNotice | undefined => {
    const span = sentInSpan.get(id);
    if (span !== undefined) return span;
    const n = reader.known(r.ns)[id];
    return n && { from: n.from, to: n.recipients.map((x) => x.member), ...(n.evidence_key !== undefined ? { evidence_key: n.evidence_key } : {}) };
  };
  const line = (id: string, member: string, extra: Partial<ReplayedNotice>): ReplayedNotice[] => {
    const n = of(id);
    if (n === undefined || !seen(n, member)) return [];
    return [{ at, event: 'arrived', notice_id: id, from: n.from, to: [...n.to], member, ...(n.evidence_key !== undefined ? { evidence_key: n.evidence_key } : {}), ...extra }];
  };
  if (r.type === 'notice.arrived') {
    const d = r.data as EventData<'notice.arrived'>;
    return d.notice_ids.flatMap((id) => line(id, d.member, {}));
  }
  if (r.type === 'notice.acked') {
    const d = r.data as EventData<'notice.acked'>;
    return line(d.notice_id, d.member, { event: 'acked', ...(d.note !== undefined && d.note !== PURGED_TEXT ? { note: d.note } : {}) });
  }
  return [];
}

/** The notices about items a turn delivered (before or after the replay): their ids, in span order. */
export function turnNotices(keys: readonly string[], lines: readonly ReplayedNotice[]): string[] {
  const about = new Set(keys);
  return [...new Set(lines.filter((l) => l.evidence_key !== undefined && about.has(l.evidence_key)).map((l) => l.notice_id))];
}
