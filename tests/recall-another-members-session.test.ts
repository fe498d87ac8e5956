// A plain recall naming another member's session (issue 34): the session is not the caller's, so
// the recall neither reads what that session was handed (which would show, by what is held back or
// where a turn window stops, what the other member was given) nor records its delivery under it
// (which would hold those items and their windows back from the member whose session it is).
// Starting a turn there is refused already (visibleSession); a plain recall took any session id.
import { describe, expect, it } from 'vitest';
import type { Access } from '../src/access.js';
import { HashedEmbedder } from '../src/embed/index.js';
import { openKioku } from '../src/kioku.js';
import { DoubleJudge } from './doubles/judge.js';
import { tempDir } from './helpers.js';

const member = (name: string): Access => ({ namespaces: ['team'], principal: `${name}-laptop`, actor: `http:${name}-laptop` });

describe('a plain recall naming another member’s session', () => {
  it('reads nothing that session was handed and records nothing under it (defect: it did both)', async () => {
    const dir = tempDir();
    const kioku = await openKioku({ data: dir.path, embedder: new HashedEmbedder(32), judge: new DoubleJudge((c) => (c.key.endsWith(':t2') ? 0.9 : 0.1)) });
    try {
      for (const change of [
        { action: 'member_add', member: 'alice', tokens: ['alice-laptop'] },
        { action: 'member_add', member: 'bob', tokens: ['bob-laptop'] },
      ])
        await kioku.changeOrg({ namespace: 'team', ...change } as never);
      const alice = member('alice');
      const bob = member('bob');
      const at = (s: number) => new Date(Date.UTC(2024, 0, 1, 9, 0, s)).toISOString();
      const lines = ['Melanie: Which lake did you paint?', 'Caroline: Lake Tahoe, at sunrise.', 'Melanie: It is beautiful.'];
      await kioku.writeMemories(
        { namespace: 'team', memories: lines.map((text, i) => ({ id: `t${i + 1}`, kind: 'event', session_id: 'chat', occurred_at: at(i), text, audience: { org: true } })) },
        alice,
      );
      const key = (id: string) => `ev1:team:memory:${id}`;
      const window = [key('t1'), key('t2'), key('t3')];
      await kioku.openSession({ agent: 'a', session_id: 'alice-s', namespace: 'team' }, alice);
      const turn = await kioku.startTurn({ session_id: 'alice-s', namespace: 'team', query: 'Which lake did Caroline paint?' }, alice);
      expect(turn.delivery.map((d) => [d.evidence_key, d.window])).toEqual([[key('t2'), window]]);
      const handed = () => [...kioku.core.projections.views.delivered.deliveredSince('team', 'alice-s')].map(([k, fps]) => [k, fps.length]);
      const before = handed();

      // bob names alice's session: he is answered as in a session of his own that was handed nothing
      const asBob = await kioku.recall({ namespace: 'team', session_id: 'alice-s', query: 'Which lake did Caroline paint?' }, bob);
      expect(asBob.delivery.map((d) => [d.evidence_key, d.window])).toEqual([[key('t2'), window]]);
      // and alice's session was handed nothing more
      expect(handed()).toEqual(before);
    } finally {
      await kioku.close();
      dir.cleanup();
    }
  });
});
