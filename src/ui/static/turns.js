// Turns: the recent turns (hook, MCP, HTTP), each with its query, what was delivered and how many
// candidates each delivery rule held back; a turn's page shows its queries, every candidate with
// its verdict and the rule that held it (`why`), and replays it under changed rules.
import { api, query } from './api.js';
import { failure, h, itemLink, num, show, table, when } from './dom.js';

const heldText = (held) =>
  Object.entries(held)
    .map(([rule, n]) => `${rule} ×${n}`)
    .join(', ') || '—';

async function list(main, ctx) {
  const before = ctx.params.get('before') ?? undefined;
  const a = await api('GET', `/v1/activity${query({ namespace: ctx.ns, limit: 25, before })}`);
  const rows = a.turns.map((t) => [
    h('a', { href: `#/turn/${encodeURIComponent(t.turn_id)}` }, t.query.slice(0, 140) || '(empty)'),
    when(t.started_at),
    h('code', {}, t.session_id),
    t.delivered.length ? t.delivered.map((k) => h('div', {}, itemLink(k))) : h('span', { class: 'muted' }, 'nothing'),
    heldText(t.held),
  ]);
  show(
    main,
    h('h2', {}, 'Turns'),
    h('p', { class: 'muted' }, 'Every recorded turn, newest first: what the agent asked, what Kioku delivered, and which rule held the other judged candidates back.'),
    rows.length ? table(null, ['query', 'started', 'session', 'delivered', 'held back (rule × items)'], rows) : h('p', {}, 'No turns recorded yet.'),
    h('div', { class: 'pager' }, before ? h('a', { href: '#/turns' }, 'Newest') : null, a.next_before ? h('a', { href: `#/turns?before=${a.next_before}` }, 'Older turns') : null),
  );
}

function candidateRows(recall, verdicts, delivered) {
  return recall.data.candidates.map((c, i) => {
    const verdict = verdicts.get(c.evidence_key);
    const isDelivered = delivered.has(c.evidence_key);
    const why = isDelivered ? h('span', { class: 'delivered' }, 'delivered') : c.held ? h('span', { class: 'held' }, `held back: ${c.held}`) : h('span', { class: 'muted' }, c.flags.includes('judged') ? 'not delivered' : 'not judged');
    return [String(i + 1), itemLink(c.evidence_key), c.score.toFixed(4), verdict === undefined ? '—' : String(verdict), why, Object.keys(c.lanes).join(', ')];
  });
}

function verdictMap(events) {
  const m = new Map();
  for (const e of events) if (e.type === 'verdict.recorded') for (const v of e.data.verdicts ?? []) m.set(v.evidence_key, v.score);
  return m;
}

function replayForm(turn) {
  const out = h('div', { role: 'status', 'aria-live': 'polite' });
  const floor = h('input', { id: 'floor', type: 'number', min: 0, max: 1, step: 0.05, placeholder: 'as configured' });
  const maxItems = h('input', { id: 'max-items', type: 'number', min: 0, max: 3, step: 1, placeholder: 'as configured' });
  const form = h(
    'form',
    { class: 'filters' },
    h('label', { for: 'floor' }, 'verdict floor', floor),
    h('label', { for: 'max-items' }, 'items at most', maxItems),
    h('button', { type: 'submit' }, 'Replay this turn'),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const from = new Date(Date.parse(turn.started) - 1000).toISOString();
    const to = new Date(Date.parse(turn.started) + 60_000).toISOString();
    try {
      const r = await api('POST', '/v1/replay', { namespace: turn.namespace, from, to, rules: {
        ...(floor.value !== '' ? { floor: Number(floor.value) } : {}),
        ...(maxItems.value !== '' ? { max_items: Number(maxItems.value) } : {}),
      } });
      const t = r.turns.find((x) => x.turn_id === turn.id);
      show(
        out,
        t
          ? table('delivered as recorded, and under these rules (nothing is written)', ['before', 'after'], [[t.before.map((k) => h('div', {}, itemLink(k))), t.after.map((k) => h('div', {}, itemLink(k)))]])
          : h('p', {}, `${r.totals.turns} turns replayed; this one was not among them`),
      );
    } catch (err) {
      show(out, failure(err));
    }
  });
  return [h('h3', {}, 'Replay under changed rules'), form, out];
}

async function detail(main, ctx) {
  const a = await api('GET', `/v1/artifacts/${encodeURIComponent(ctx.arg)}`);
  const start = a.events.find((e) => e.type === 'turn.started');
  const recalls = a.events.filter((e) => e.type === 'recall.performed');
  const delivered = new Set(a.events.filter((e) => e.type === 'delivery.made').flatMap((e) => e.data.items.map((i) => i.evidence_key)));
  const verdicts = verdictMap(a.events);
  show(
    main,
    h('h2', {}, 'Turn'),
    h('p', {}, h('a', { href: '#/turns' }, '← all turns')),
    h('p', { class: 'text' }, start?.data.query ?? ''),
    h('p', { class: 'muted' }, `session ${a.session_id} · ${start ? when(start.ts) : ''} · ${a.completed ? 'completed' : 'not completed'}`),
    recalls.map((r) => [
      h('h3', {}, `Recall ${r.data.recall_id} (${r.data.retrieval_mode})`),
      h('p', {}, 'queries: ', r.data.queries.map((q) => h('span', {}, h('code', {}, q.kind), ' ', q.text, ' · '))),
      table(null, ['#', 'candidate', { label: 'score', num: true }, 'verdict', 'why', 'lanes'], candidateRows(r, verdicts, delivered)),
    ]),
    replayForm({ id: a.trace_id, started: start?.ts, namespace: a.namespace }),
  );
}

export async function render(main, ctx) {
  if (ctx.page === 'turn' && ctx.arg) return detail(main, ctx);
  return list(main, ctx);
}
