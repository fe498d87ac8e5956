// Notices between org members (issue 34): the fold and the deciders of src/knowledge/notices.ts,
// given events / when a command / then the events or the answer. The doors and two nodes are
// tests/notices-two-nodes.test.ts; single-user refusals are tests/mcp-strict-arguments.test.ts.
import { describe, expect, it } from 'vitest';
import { NoticesProjection } from '../projections/notices.js';
import type { LogRecord } from '../src/events/index.js';
import { KiokuError } from '../src/errors.js';
import { decideAck, decideArrivals, decideNotices, requireRecipients, type NoticeDraft, type NoticeOrg } from '../src/knowledge/notices.js';

let seq = 0;
const rec = (type: string, data: Record<string, unknown>, ns = 'team'): LogRecord =>
  ({ seq: ++seq, ts: Date.UTC(2026, 10, 1) + seq * 1000, type, v: 1, ns, actor: 'test', data, prev: '', hash: '' }) as unknown as LogRecord;
const given = (events: LogRecord[]) => {
  const p = new NoticesProjection();
  for (const e of events) p.apply(e);
  return p;
};
const note: NoticeDraft = { to: ['bob', 'carol'], kind: 'note', text: 'The cutover moved to May.', field: 'to' };
const asRecords = (events: ReturnType<typeof decideNotices>) => events.map((e) => rec(e.type, e.data as Record<string, unknown>, e.ns));
const org: NoticeOrg = { isOrg: true, hasMember: (m) => ['alice', 'bob', 'carol'].includes(m) };
const refusal = (fn: () => unknown) => {
  try {
    fn();
    return undefined;
  } catch (e) {
    return { code: (e as KiokuError).code, message: (e as KiokuError).message, details: (e as KiokuError).details };
  }
};

describe('notices', () => {
  it('sent → inbox of each recipient; a repeat of the same notice appends nothing', () => {
    const sent = decideNotices({}, 'team', 'alice', [note]);
    expect(sent).toEqual([{ type: 'notice.sent', ns: 'team', data: { notice_id: expect.stringMatching(/^n-[0-9a-f]{16}$/), from: 'alice', to: ['bob', 'carol'], kind: 'note', text: note.text } }]);
    const p = given(asRecords(sent));
    expect(p.inbox('team', 'bob')).toEqual([{ notice_id: (sent[0]?.data as { notice_id: string }).notice_id, from: 'alice', kind: 'note', text: note.text, sent_at: expect.any(String) }]);
    expect(p.inbox('team', 'alice')).toEqual([]);
    expect(p.inbox('other', 'bob')).toEqual([]);
    expect(decideNotices(p.of('team'), 'team', 'alice', [note])).toEqual([]);
    // another sender, or other words, is another notice
    expect(decideNotices(p.of('team'), 'team', 'bob', [{ ...note, to: ['carol'] }])).toHaveLength(1);
  });

  it('arrived on the first look, acked once; the outbox shows each recipient’s status', () => {
    const sent = asRecords(decideNotices({}, 'team', 'alice', [note]));
    const id = (sent[0]?.data as { notice_id: string }).notice_id;
    const p = given(sent);
    const arrivals = decideArrivals('team', 'bob', p.inbox('team', 'bob'));
    expect(arrivals).toEqual([{ type: 'notice.arrived', ns: 'team', data: { member: 'bob', notice_ids: [id] } }]);
    for (const r of asRecords(arrivals)) p.apply(r);
    expect(decideArrivals('team', 'bob', p.inbox('team', 'bob'))).toEqual([]);
    expect(p.outbox('team', 'alice')[0]?.to.map((t) => [t.member, t.status])).toEqual([
      ['bob', 'arrived'],
      ['carol', 'sent'],
    ]);
    const acked = decideAck(p.of('team'), 'team', 'bob', id, 'will do');
    expect(acked).toEqual([{ type: 'notice.acked', ns: 'team', data: { member: 'bob', notice_id: id, note: 'will do' } }]);
    for (const r of asRecords(acked)) p.apply(r);
    expect(p.inbox('team', 'bob')).toEqual([]);
    expect(p.inbox('team', 'bob', true)).toHaveLength(1);
    expect(decideAck(p.of('team'), 'team', 'bob', id)).toEqual([]);
    // carol signs off without looking first: it arrived then
    for (const r of asRecords(decideAck(p.of('team'), 'team', 'carol', id))) p.apply(r);
    expect(p.outbox('team', 'alice')[0]?.to).toEqual([
      { member: 'bob', status: 'acked', arrived_at: expect.any(String), acked_at: expect.any(String), note: 'will do' },
      { member: 'carol', status: 'acked', arrived_at: expect.any(String), acked_at: expect.any(String) },
    ]);
  });

  it('refuses an ack of a notice not in the caller’s inbox, and a notify without an org or to an unknown member', () => {
    const p = given(asRecords(decideNotices({}, 'team', 'alice', [note])));
    const id = Object.keys(p.of('team'))[0] as string;
    expect(refusal(() => decideAck(p.of('team'), 'team', 'alice', id))).toMatchObject({ code: 'KIOKU_NOT_FOUND' });
    expect(refusal(() => requireRecipients(org, [{ to: ['bob', 'zed'], field: 'memories.0.notify' }], 'write memories'))).toEqual({
      code: 'KIOKU_NOT_FOUND',
      message: 'write memories: memories.0.notify.1: no member "zed" in this org; nothing was written',
      details: { field: 'memories.0.notify.1', value: 'zed' },
    });
    expect(refusal(() => requireRecipients({ isOrg: false, hasMember: () => false }, [{ to: ['bob'], field: 'to' }], 'notify'))).toMatchObject({
      code: 'KIOKU_SINGLE_USER',
      details: { field: 'to' },
    });
    expect(refusal(() => requireRecipients({ isOrg: false, hasMember: () => false }, [], 'notify'))).toBeUndefined();
  });

  it('rebuilds to the same state: a snapshot round trip has the same digest and answers', () => {
    const events = asRecords(decideNotices({}, 'team', 'alice', [note, { ...note, kind: 'assignment', text: 'Review the runbook.' }]));
    const a = given(events);
    for (const r of asRecords(decideArrivals('team', 'bob', a.inbox('team', 'bob')))) a.apply(r);
    const b = new NoticesProjection();
    b.load(structuredClone(a.snapshot()));
    expect(b.digest()).toBe(a.digest());
    expect(b.outbox('team', 'alice')).toEqual(a.outbox('team', 'alice'));
  });
});
