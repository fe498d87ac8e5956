// Notices between the members of an org (issue 34, the seed's 推送与签收): a member notifies others
// (write_memory's `notify`, or the notify tool), each recipient's inbox lists what waits for it,
// the recipient's first look marks a notice arrived, `ack` signs it off, and the sender's outbox
// shows per recipient whether it arrived and was acknowledged. All of it is events
// (notice.sent, notice.arrived, notice.acked); this module is the pure part: the input schemas, the
// fold (`evolveNotices`), the questions asked of it, and the deciders (state, command → events)
// that refuse a whole command before anything is appended.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { KiokuError } from '../errors.js';
import { orgName, type AppendInput, type EventData, type LogRecord } from '../events/index.js';
import { PURGED_TEXT } from '../privacy/index.js';
import { noteText } from './evidence.js';

export const NOTICE_EVENT_TYPES = ['notice.sent', 'notice.arrived', 'notice.acked'] as const;
/** what else the fold reads: a forgotten memory's notices show no text, a purge drops it (issue 33) */
export const NOTICE_FOLD_TYPES = [...NOTICE_EVENT_TYPES, 'memory.forgotten', 'purged'] as const;
export const NOTICE_KINDS = ['note', 'assignment'] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];
/** the longest text a notice carries (a memory's text is cut to it) */
export const NOTICE_TEXT_MAX = 2_000;
/** notices marked arrived by one event (the catalog's bound) */
export const ARRIVALS_PER_EVENT = 500;
/** the most recipients one notice names */
export const NOTICE_RECIPIENTS_MAX = 50;

/** A notice's id: `n-` and 16 hex digits, derived from what it says (a repeat of the same notice is the same notice). */
export const noticeIdSchema = z.string().regex(/^n-[0-9a-f]{16}$/, 'expected a notice id (n- and 16 hex digits) as inbox shows it');

/** Whom a write or a note notifies: member names, at least one. */
export const recipientsSchema = z.array(orgName).min(1).max(NOTICE_RECIPIENTS_MAX);

/** A note to members, not tied to a write (the notify tool, POST /v1/notices). */
export const notifySchema = z.strictObject({
  to: recipientsSchema,
  text: noteText(NOTICE_TEXT_MAX).trim().min(1),
  kind: z.enum(NOTICE_KINDS).default('note'),
  /** the memory it is about, if any (an evidence key or a memory id) */
  about: z.string().min(1).max(8_192).optional(),
});

/** What inbox lists: what waits (default), or everything received. */
export const inboxQuerySchema = z.strictObject({ include_acked: z.boolean().optional() });

export const ackSchema = z.strictObject({ note: noteText(NOTICE_TEXT_MAX).trim().min(1).optional() });

export interface NoticeRecipient {
  member: string;
  arrived_at?: string;
  acked_at?: string;
  note?: string;
}

/** What a notice says, as sent. */
export interface NoticeBody {
  notice_id: string;
  from: string;
  kind: NoticeKind;
  /** absent when the memory it is about was forgotten or purged (text_forgotten, text_purged) */
  text?: string;
  text_forgotten?: true;
  text_purged?: true;
  evidence_key?: string;
  sent_at: string;
}

export interface Notice extends NoticeBody {
  recipients: NoticeRecipient[];
}

/** Per namespace, notices by id. */
export type NoticeState = Record<string, Record<string, Notice>>;

export function evolveNotices(state: NoticeState, record: LogRecord): void {
  if (record.type === 'memory.forgotten' || record.type === 'purged') return dropTexts(state, record);
  if (!record.type.startsWith('notice.')) return;
  const notices = (state[record.ns] ??= {});
  switch (record.type) {
    case 'notice.sent': {
      const d = record.data as EventData<'notice.sent'>;
      if (notices[d.notice_id]) return; // a second sender of the same notice (two nodes at once): the first stands
      notices[d.notice_id] = {
        notice_id: d.notice_id,
        from: d.from,
        kind: d.kind,
        // sealed, its key purged since (a rebuild after the purge): no text
        ...(d.text === PURGED_TEXT ? { text_purged: true as const } : { text: d.text }),
        ...(d.evidence_key !== undefined ? { evidence_key: d.evidence_key } : {}),
        sent_at: new Date(record.ts).toISOString(),
        recipients: d.to.map((member) => ({ member })),
      };
      return;
    }
    case 'notice.arrived': {
      const d = record.data as EventData<'notice.arrived'>;
      for (const id of d.notice_ids) {
        const r = notices[id]?.recipients.find((x) => x.member === d.member);
        if (r && r.arrived_at === undefined) r.arrived_at = new Date(record.ts).toISOString();
      }
      return;
    }
    case 'notice.acked': {
      const d = record.data as EventData<'notice.acked'>;
      const r = notices[d.notice_id]?.recipients.find((x) => x.member === d.member);
      if (!r || r.acked_at !== undefined) return;
      const at = new Date(record.ts).toISOString();
      r.arrived_at ??= at; // signed off without a look at the inbox first: it arrived then
      r.acked_at = at;
      if (d.note !== undefined && d.note !== PURGED_TEXT) r.note = d.note;
      return;
    }
  }
}

/** A forgotten memory's notices lose their text; a purge drops the text and sign-off notes of the notices about what it names (all of a namespace's). */
function dropTexts(state: NoticeState, record: LogRecord): void {
  const notices = state[record.ns];
  if (!notices) return;
  const purged = record.type === 'purged' ? (record.data as EventData<'purged'>) : undefined;
  const keys = new Set(purged ? purged.keys : [`ev1:${record.ns}:memory:${(record.data as EventData<'memory.forgotten'>).id}`]);
  for (const n of Object.values(notices)) {
    const whole = purged?.scope === 'namespace';
    if (!whole && (n.evidence_key === undefined || !keys.has(n.evidence_key))) continue;
    delete n.text;
    if (purged) {
      n.text_purged = true;
      for (const r of n.recipients) delete r.note;
    } else n.text_forgotten = true;
  }
}

/** One line of a member's inbox. */
export interface InboxItem extends NoticeBody {
  arrived_at?: string;
  acked_at?: string;
}

/** What waits for `member` (oldest first), or everything it received with `includeAcked`. */
export function inboxOf(notices: Readonly<Record<string, Notice>>, member: string, includeAcked = false): InboxItem[] {
  const out: InboxItem[] = [];
  for (const n of Object.values(notices)) {
    const r = n.recipients.find((x) => x.member === member);
    if (!r || (r.acked_at !== undefined && !includeAcked)) continue;
    out.push({
      notice_id: n.notice_id,
      from: n.from,
      kind: n.kind,
      ...textOf(n),
      ...(n.evidence_key !== undefined ? { evidence_key: n.evidence_key } : {}),
      sent_at: n.sent_at,
      ...(r.arrived_at !== undefined ? { arrived_at: r.arrived_at } : {}),
      ...(r.acked_at !== undefined ? { acked_at: r.acked_at } : {}),
    });
  }
  return out.sort((a, b) => a.sent_at.localeCompare(b.sent_at) || a.notice_id.localeCompare(b.notice_id));
}

function textOf(n: NoticeBody): Pick<NoticeBody, 'text' | 'text_forgotten' | 'text_purged'> {
  if (n.text_purged) return { text_purged: true };
  if (n.text_forgotten) return { text_forgotten: true };
  return n.text !== undefined ? { text: n.text } : {};
}

export type RecipientStatus = 'sent' | 'arrived' | 'acked';

/** One line of a member's outbox: the notice and, per recipient, how far it got. */
export interface OutboxItem {
  notice_id: string;
  kind: NoticeKind;
  text?: string;
  text_forgotten?: true;
  text_purged?: true;
  evidence_key?: string;
  sent_at: string;
  to: (NoticeRecipient & { status: RecipientStatus })[];
}

export function outboxOf(notices: Readonly<Record<string, Notice>>, member: string): OutboxItem[] {
  return Object.values(notices)
    .filter((n) => n.from === member)
    .map((n) => ({
      notice_id: n.notice_id,
      kind: n.kind,
      ...textOf(n),
      ...(n.evidence_key !== undefined ? { evidence_key: n.evidence_key } : {}),
      sent_at: n.sent_at,
      to: n.recipients.map((r) => ({ ...r, status: statusOf(r) })),
    }))
    .sort((a, b) => a.sent_at.localeCompare(b.sent_at) || a.notice_id.localeCompare(b.notice_id));
}

function statusOf(r: NoticeRecipient): RecipientStatus {
  return r.acked_at !== undefined ? 'acked' : r.arrived_at !== undefined ? 'arrived' : 'sent';
}

/** A notice to send, as a command decides it. */
export interface NoticeDraft {
  to: readonly string[];
  kind: NoticeKind;
  text: string;
  evidence_key?: string;
  /** where the recipients came from in the request (`memories.0.notify`, `to`): named in a refusal */
  field: string;
}

/** What the deciders need to know of the org. */
export interface NoticeOrg {
  /** the namespace has members at all */
  isOrg: boolean;
  hasMember(name: string): boolean;
}

/** Refuse a notify a single-user library or an unknown member makes impossible (before anything is appended). */
export function requireRecipients(org: NoticeOrg, drafts: readonly Pick<NoticeDraft, 'to' | 'field'>[], what: string): void {
  const first = drafts.find((d) => d.to.length > 0);
  if (first === undefined) return;
  if (!org.isOrg)
    throw new KiokuError(
      'KIOKU_SINGLE_USER',
      `${what}: ${first.field}: this library runs for a single user (no org), so there is no other member to notify; nothing was written`,
      { details: { field: first.field } },
    );
  for (const d of drafts)
    for (const [i, name] of d.to.entries())
      if (!org.hasMember(name))
        throw new KiokuError('KIOKU_NOT_FOUND', `${what}: ${d.field}.${i}: no member "${name}" in this org; nothing was written`, {
          details: { field: `${d.field}.${i}`, value: name },
        });
}

/** The notice.sent events for `drafts` from `from`: one per draft, none for a notice already sent (a repeat). */
export function decideNotices(notices: Readonly<Record<string, Notice>>, ns: string, from: string, drafts: readonly NoticeDraft[]): AppendInput[] {
  const events: AppendInput[] = [];
  const seen = new Set<string>();
  for (const d of drafts) {
    const to = [...new Set(d.to)];
    const notice_id = noticeId(ns, from, d, to);
    if (notices[notice_id] || seen.has(notice_id)) continue;
    seen.add(notice_id);
    const text = d.text.length > NOTICE_TEXT_MAX ? `${d.text.slice(0, NOTICE_TEXT_MAX - 1)}…` : d.text;
    events.push({ type: 'notice.sent', ns, data: { notice_id, from, to, kind: d.kind, text, ...(d.evidence_key ? { evidence_key: d.evidence_key } : {}) } });
  }
  return events;
}

function noticeId(ns: string, from: string, d: NoticeDraft, to: readonly string[]): string {
  const body = [ns, from, d.kind, d.evidence_key ?? '', d.text, [...to].sort().join(',')].join('\u0000');
  return `n-${createHash('sha256').update(body, 'utf8').digest('hex').slice(0, 16)}`;
}

/** The notice.arrived event for what `member`'s inbox shows for the first time (none when nothing is new). */
export function decideArrivals(ns: string, member: string, shown: readonly InboxItem[]): AppendInput[] {
  const fresh = shown.filter((n) => n.arrived_at === undefined).map((n) => n.notice_id);
  const events: AppendInput[] = [];
  for (let i = 0; i < fresh.length; i += ARRIVALS_PER_EVENT) events.push({ type: 'notice.arrived', ns, data: { member, notice_ids: fresh.slice(i, i + ARRIVALS_PER_EVENT) } });
  return events;
}

/** Sign a notice off: only its recipient may; signing it off again appends nothing. */
export function decideAck(notices: Readonly<Record<string, Notice>>, ns: string, member: string, id: string, note?: string): AppendInput[] {
  const r = notices[id]?.recipients.find((x) => x.member === member);
  if (!r) throw new KiokuError('KIOKU_NOT_FOUND', `ack: no notice ${id} in your inbox`, { details: { field: 'notice_id', value: id } });
  if (r.acked_at !== undefined) return [];
  return [{ type: 'notice.acked', ns, data: { member, notice_id: id, ...(note !== undefined ? { note } : {}) } }];
}

/**
 * Who sees a notice's events (replay, issue 34): its sender every one of them (the outbox shows each
 * recipient's arrival and sign-off), a recipient the sending and its own arrival and sign-off, never
 * another recipient's; `recipient` is the member an arrived/acked event is about (absent for sent).
 */
export function noticeSeenBy(notice: { from: string; to: readonly string[] }, member: string, recipient?: string): boolean {
  if (notice.from === member) return true;
  return recipient === undefined ? notice.to.includes(member) : recipient === member;
}
