// kioku inbox [--all] | kioku ack <notice> [--note TEXT] | kioku outbox [--ns NS] [--json]
// Notices between org members (issue 34) through the facade, as the member the connection's token
// acts as (KIOKU_URL + KIOKU_TOKEN); without an org they answer empty and say why.
import type { PathOverrides } from '../../src/config.js';
import type { InboxAnswer, OutboxAnswer } from '../../src/kioku.js';
import { EXIT, emit, type OutputOptions } from '../cli-util.js';
import { connectKioku } from './connection.js';

export interface NoticeFlags extends OutputOptions, PathOverrides {
  ns?: string;
  all?: boolean;
  note?: string;
}

const inNs = (flags: NoticeFlags) => (flags.ns ? { namespace: flags.ns } : {});

function renderInbox(r: InboxAnswer): string {
  if (r.single_user) return r.explanation ?? '';
  if (r.notices.length === 0) return `nothing waits for ${r.member ?? 'you'}`;
  return r.notices
    .map((n) => `${n.notice_id}  ${n.kind} from ${n.from}${n.acked_at ? ' (acked)' : ''}${n.evidence_key ? `  [${n.evidence_key}]` : ''}\n  ${(n.text ?? '(text forgotten or purged)').slice(0, 300)}`)
    .join('\n');
}

function renderOutbox(r: OutboxAnswer): string {
  if (r.single_user) return r.explanation ?? '';
  if (r.notices.length === 0) return 'nothing sent';
  return r.notices.map((n) => `${n.notice_id}  ${n.kind}: ${(n.text ?? '(text forgotten or purged)').slice(0, 120)}\n  ${n.to.map((t) => `${t.member} ${t.status}${t.note ? ` ("${t.note}")` : ''}`).join(', ')}`).join('\n');
}

export async function inboxCommand(flags: NoticeFlags): Promise<number> {
  const { kioku } = await connectKioku(flags, { actor: 'cli' });
  try {
    const r = await kioku.inbox({ ...inNs(flags), ...(flags.all ? { include_acked: true } : {}) }, { actor: 'cli' });
    emit(flags, () => renderInbox(r), r);
    return EXIT.ok;
  } finally {
    await kioku.close();
  }
}

export async function outboxCommand(flags: NoticeFlags): Promise<number> {
  const { kioku } = await connectKioku(flags, { actor: 'cli' });
  try {
    const r = await kioku.outbox(inNs(flags), { actor: 'cli' });
    emit(flags, () => renderOutbox(r), r);
    return EXIT.ok;
  } finally {
    await kioku.close();
  }
}

export async function ackCommand(noticeId: string, flags: NoticeFlags): Promise<number> {
  const { kioku } = await connectKioku(flags, { actor: 'cli' });
  try {
    const r = await kioku.ack(noticeId, { ...inNs(flags), ...(flags.note ? { note: flags.note } : {}) }, { actor: 'cli' });
    emit(flags, () => (r.acked ? `acknowledged ${r.notice_id}` : `${r.notice_id} was acknowledged already`), r);
    return EXIT.ok;
  } finally {
    await kioku.close();
  }
}
