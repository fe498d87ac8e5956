// Notify, inbox, ack and outbox as the facade answers them (issue 34): who the caller is in the
// org (its token's member), the deciders of src/knowledge/notices.ts against the notices and org
// projections caught up to the head, and the events appended. Without an org there is nobody to
// notify: a notify is refused (KIOKU_SINGLE_USER), inbox and outbox answer empty and say why.
import { z } from 'zod';
import { KiokuError } from '../errors.js';
import { evidenceKey } from '../knowledge/evidence.js';
import { memoryIdOf } from '../knowledge/memory-ref.js';
import {
  ackSchema,
  decideAck,
  decideArrivals,
  decideNotices,
  inboxQuerySchema,
  noticeSeenBy,
  notifySchema,
  requireRecipients,
  type InboxItem,
  type NoticeDraft,
  type NoticeOrg,
  type OutboxItem,
} from '../knowledge/notices.js';
import type { MemoryKind } from '../knowledge/kinds.js';
import { audienceEntries, canSee, orgCaller, type AudienceInput } from '../knowledge/audience.js';
import { spacesSeenBy, type Org } from '../knowledge/org.js';
import type { AppendInput } from '../events/index.js';
import type { Access } from '../access.js';
import type { KiokuStore } from '../store.js';
import { orgCallerIn } from './audience.js';

export { ackSchema, inboxQuerySchema, notifySchema };
export type { InboxItem, OutboxItem };

/** Said by inbox and outbox (and a refused ack) in a library without an org. */
export const SINGLE_USER_NOTICES = 'Kioku runs for a single user here: there are no other members to send notices to or receive them from.';

export interface InboxAnswer {
  namespace: string;
  /** the member the caller acts as (absent without an org) */
  member?: string;
  notices: InboxItem[];
  single_user?: true;
  explanation?: string;
}

export interface OutboxAnswer {
  namespace: string;
  member?: string;
  notices: OutboxItem[];
  single_user?: true;
  explanation?: string;
}

export interface NotifyAnswer {
  /** the notices the call names, sent now or by an earlier call with the same content (a repeat appends nothing) */
  notice_ids: string[];
  /** how many were sent by this call */
  sent: number;
}

export interface AckAnswer {
  notice_id: string;
  /** false: it was signed off already (nothing appended) */
  acked: boolean;
}

/** A memory's notify, as the facade hands it on from a write: where it was, whom, what, and who may see it. */
export interface MemoryNotify {
  index: number;
  to: readonly string[];
  kind: MemoryKind;
  audience?: AudienceInput | undefined;
}

function orgOf(store: KiokuStore, ns: string): NoticeOrg {
  const org = store.projections.views.org;
  return { isOrg: org.isOrg(ns), hasMember: (name) => org.memberByName(ns, name) !== undefined };
}

/** The member the caller acts as, in an org: its token's member; anyone else may not send or receive notices. */
function callerMember(store: KiokuStore, ns: string, access: Access, what: string): string {
  const member = access.principal !== undefined ? store.projections.views.org.memberOf(ns, access.principal) : undefined;
  if (member === undefined)
    throw new KiokuError('KIOKU_FORBIDDEN', `${what}: you act as no member of this org (a token mapped to a member is needed for notices)`, {
      details: { field: 'token' },
    });
  return member.name;
}

async function caughtUp(store: KiokuStore): Promise<void> {
  await store.projections.waitFor(store.log.head().seq);
}

async function append(store: KiokuStore, events: AppendInput[], actor: string): Promise<void> {
  if (events.length === 0) return;
  const appended = await store.log.appendAll(events.map((e) => ({ ...e, actor })));
  const last = appended[appended.length - 1];
  if (last) await store.projections.waitFor(last.seq);
}

/**
 * Before a write with `notify`: refuse it whole (nothing appended) when there is no org, a
 * recipient is no member, or the caller acts as none. Returns the sender, or undefined when the
 * write notifies nobody.
 */
export async function senderFor(store: KiokuStore, ns: string, access: Access, notifies: readonly MemoryNotify[]): Promise<string | undefined> {
  if (notifies.length === 0) return undefined;
  await caughtUp(store);
  requireRecipients(orgOf(store, ns), notifies.map((n) => ({ to: n.to, field: `memories.${n.index}.notify` })), 'write memories');
  const from = callerMember(store, ns, access, 'write memories');
  const org = store.projections.views.org.org(ns);
  for (const n of notifies) requireSeenBy(org, from, n, 'write memories');
  return from;
}

/**
 * A notice carries its memory's text: each recipient must be one the memory's audience lets see it
 * (the one policy, canSee), else the notice would leak what the audience keeps from them.
 */
function requireSeenBy(org: Org, owner: string, n: MemoryNotify, what: string): void {
  const audience = audienceEntries(n.audience) ?? [];
  for (const [i, name] of n.to.entries()) {
    const member = org.members[name];
    if (member === undefined || canSee({ owner, audience }, { org, member, all: false, seen: spacesSeenBy(org, name) })) continue;
    throw new KiokuError(
      'KIOKU_AUDIENCE_REFUSED',
      `${what}: memories.${n.index}.notify.${i}: "${name}" would not see this memory (its audience: ${audience.join(', ') || 'you only'}); widen its audience ({org: true}, or a space ${name} is in) or notify only members who see it; nothing was written`,
      { details: { field: `memories.${n.index}.notify.${i}`, value: name } },
    );
  }
}

/** After the write: one notice per notifying memory, carrying the memory's text as stored (its secrets as placeholders). */
export async function sendMemoryNotices(
  store: KiokuStore,
  ns: string,
  from: string,
  notifies: readonly MemoryNotify[],
  ids: readonly string[],
  actor: string,
): Promise<void> {
  const drafts: NoticeDraft[] = notifies.flatMap((n) => {
    const id = ids[n.index];
    if (id === undefined) return [];
    const key = evidenceKey({ ns, layer: 'memory', id });
    const text = store.projections.views.records.get(key)?.text ?? '';
    return text ? [{ to: n.to, kind: n.kind === 'commitment' ? 'assignment' : 'note', text, evidence_key: key, field: `memories.${n.index}.notify` }] : [];
  });
  await append(store, decideNotices(store.projections.views.notices.of(ns), ns, from, drafts), actor);
}

/** A note to members (the notify tool, POST /v1/notices). */
export async function notify(store: KiokuStore, ns: string, input: z.output<typeof notifySchema>, access: Access, actor: string): Promise<NotifyAnswer> {
  await caughtUp(store);
  requireRecipients(orgOf(store, ns), [{ to: input.to, field: 'to' }], 'notify');
  const from = callerMember(store, ns, access, 'notify');
  const about = input.about !== undefined ? visibleMemory(store, aboutKey(input.about, ns), access) : undefined;
  const draft: NoticeDraft = { to: input.to, kind: input.kind, text: input.text, field: 'to', ...(about ? { evidence_key: about } : {}) };
  const notices = store.projections.views.notices.of(ns);
  const events = decideNotices(notices, ns, from, [draft]);
  // the id of a repeat is the one sent before: decided against an empty state it comes out the same
  const ids = decideNotices({}, ns, from, [draft]).map((e) => (e.data as { notice_id: string }).notice_id);
  await append(store, events, actor);
  return { notice_ids: ids, sent: events.length };
}

/**
 * The memory a note is about: one the caller sees and not forgotten, else refused as not found (an
 * `about` naming nothing was stored as given, credential included: issue 33). The refusal never
 * echoes the value.
 */
function visibleMemory(store: KiokuStore, key: string, access: Access): string {
  const entry = store.projections.views.records.get(key);
  if (entry === undefined || entry.layer !== 'memory' || entry.status === 'forgotten' || !canSee(entry, orgCallerIn(store, entry.ns, access)))
    throw new KiokuError('KIOKU_NOT_FOUND', 'notify: about: no memory by that name that you can see; nothing was written', { details: { field: 'about' } });
  return key;
}

function aboutKey(about: string, ns: string): string {
  if (about.startsWith('ev1:') && !about.startsWith(`ev1:${ns}:`))
    throw new KiokuError('KIOKU_INPUT_INVALID', `notify: about: ${about.slice(0, 200)} is not in namespace "${ns}"`, { details: { field: 'about' } });
  return about.startsWith('ev1:') ? about : evidenceKey({ ns, layer: 'memory', id: memoryIdOf(about, ns, 'about', 'notify') });
}

/** What waits for the caller; what it shows for the first time is marked arrived (an event: the sender's outbox shows it). */
export async function inbox(store: KiokuStore, ns: string, input: z.output<typeof inboxQuerySchema>, access: Access, actor: string): Promise<InboxAnswer> {
  await caughtUp(store);
  if (!store.projections.views.org.isOrg(ns)) return { namespace: ns, notices: [], single_user: true, explanation: SINGLE_USER_NOTICES };
  const member = callerMember(store, ns, access, 'inbox');
  const shown = store.projections.views.notices.inbox(ns, member, input.include_acked === true);
  await append(store, decideArrivals(ns, member, shown), actor);
  return { namespace: ns, member, notices: store.projections.views.notices.inbox(ns, member, input.include_acked === true) };
}

/** What the caller sent, and per recipient whether it arrived and was signed off. */
export async function outbox(store: KiokuStore, ns: string, access: Access): Promise<OutboxAnswer> {
  await caughtUp(store);
  if (!store.projections.views.org.isOrg(ns)) return { namespace: ns, notices: [], single_user: true, explanation: SINGLE_USER_NOTICES };
  const member = callerMember(store, ns, access, 'outbox');
  return { namespace: ns, member, notices: store.projections.views.notices.outbox(ns, member) };
}

/** Sign a notice of the caller's inbox off. */
export async function ack(store: KiokuStore, ns: string, id: string, input: z.output<typeof ackSchema>, access: Access, actor: string): Promise<AckAnswer> {
  await caughtUp(store);
  if (!store.projections.views.org.isOrg(ns))
    throw new KiokuError('KIOKU_NOT_FOUND', `ack: no notice ${id.slice(0, 80)}: ${SINGLE_USER_NOTICES}`, { details: { field: 'notice_id', value: id.slice(0, 200) } });
  const member = callerMember(store, ns, access, 'ack');
  const events = decideAck(store.projections.views.notices.of(ns), ns, member, id, input.note);
  await append(store, events, actor);
  return { notice_id: id, acked: events.length > 0 };
}

/**
 * The caller's share of the notices a replay shows (issue 34): undefined (every one) without an org
 * or for the local owner; a member what it sent and what was sent to it (noticeSeenBy); a token
 * acting as no member, none.
 */
export function replayNoticeFilter(
  store: KiokuStore,
  ns: string,
  access: Access,
): ((notice: { from: string; to: readonly string[] }, recipient?: string) => boolean) | undefined {
  const caller = orgCaller(store.projections.views.org.org(ns), access.principal, access.orgAdmin === true);
  if (caller === undefined || caller.all) return undefined;
  const me = caller.member?.name;
  return (notice, recipient) => me !== undefined && noticeSeenBy(notice, me, recipient);
}
