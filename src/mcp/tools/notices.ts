// Notices between org members (issue 34, the seed's 推送与签收): notify colleagues, read what waits
// for you (inbox), sign it off (ack), and see what you sent and how far it got (outbox). A
// memory's own notify goes with write_memory. Without an org they answer empty and say why, and a
// notify is refused (KIOKU_SINGLE_USER), never dropped.
import { z } from 'zod';
import { inputSchemas, querySchemas } from '../../api/index.js';
import { orgName } from '../../events/index.js';
import { noticeIdSchema } from '../../knowledge/notices.js';
import type { InboxAnswer, OutboxAnswer } from '../../kioku.js';
import { BESIDE_INPUT, kiokuTool, namespaceReadTool } from '../tool.js';
import { headOf } from '../../text/well-formed.js';

const single = (a: InboxAnswer | OutboxAnswer) => (a.single_user ? { text: a.explanation ?? '', data: a } : undefined);

export const inbox = kiokuTool({
  name: 'inbox',
  description:
    'What waits for you from colleagues: notes and assignments (notified memories, kind commitment → assignment), oldest first, each with its notice_id and the memory\'s evidence key. Check it at the start of a session; sign each off with ack once handled. include_acked: true shows what you signed off too. Empty, with the reason, without an org.',
  input: querySchemas.inbox,
  fields: { include_acked: 'include_acked' },
  extra: {},
  into: {},
  scope: 'memory:read',
  call: async (k, input, caller) => {
    const r = await k.inbox(input, caller);
    const lines = r.notices.map((n) => `- ${n.notice_id} ${n.kind} from ${n.from}${n.acked_at ? ' (acked)' : ''}${n.evidence_key ? ` [${n.evidence_key}]` : ''}: ${headOf(n.text ?? '(text forgotten or purged)', 300)}`);
    return single(r) ?? { text: lines.length ? lines.join('\n') : `Nothing waits for ${r.member ?? 'you'}.`, data: r };
  },
});

export const ack = kiokuTool({
  name: 'ack',
  description: 'Sign off a notice from your inbox (by its notice_id) once you have read or handled it; the sender sees it acknowledged in its outbox. An optional note goes back with it.',
  input: inputSchemas.ack,
  fields: { note: 'note' },
  describe: { note: 'a short reply the sender sees, e.g. "done" or "will do on Monday"' },
  extra: { notice_id: noticeIdSchema },
  into: { notice_id: BESIDE_INPUT },
  scope: 'memory:write',
  call: async (k, input, caller, { notice_id }) => {
    const r = await k.ack(notice_id, input, caller);
    return { text: r.acked ? `acknowledged ${notice_id}` : `${notice_id} was acknowledged already`, data: r };
  },
});

export const outbox = namespaceReadTool({
  name: 'outbox',
  description: 'What you sent to colleagues (notes, and memories written with notify), and per recipient whether it arrived in their inbox and was acknowledged. Empty, with the reason, without an org.',
  call: async (k, input, caller) => {
    const r = await k.outbox(input, caller);
    const lines = r.notices.map((n) => `- ${n.notice_id} ${n.kind}: ${headOf(n.text ?? '(text forgotten or purged)', 200)} → ${n.to.map((t) => `${t.member} ${t.status}`).join(', ')}`);
    return single(r) ?? { text: lines.length ? lines.join('\n') : 'You sent nothing yet.', data: r };
  },
});

export const notify = kiokuTool({
  name: 'notify',
  description:
    'Send colleagues a note (or an assignment) that lands in their inbox, optionally about a memory (about: its evidence key or id). To share a memory as you write it, give write_memory a notify list instead. Members are named as list_members shows them; an unknown member refuses the whole call, and without an org it is refused with KIOKU_SINGLE_USER.',
  input: inputSchemas.notify,
  fields: { text: 'text', kind: 'kind', about: 'about' },
  describe: { kind: 'note (default) or assignment (something the recipient is asked to do)' },
  extra: { to: z.union([orgName, z.array(orgName).min(1).max(50)]).describe('a member, or several') },
  into: { to: 'to' },
  fold: (a) => ({ to: typeof a.to === 'string' ? [a.to] : a.to }),
  scope: 'memory:write',
  call: async (k, input, caller) => {
    const r = await k.notify(input, caller);
    return { text: `${r.sent ? 'sent' : 'sent already'}: ${r.notice_ids.join(', ')} to ${input.to.join(', ')}`, data: r };
  },
});
