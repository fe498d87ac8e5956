// Overview: what the library holds, whether the chain verifies, how far the projections and the
// embedding job are, which models answer, and the last two weeks in small charts. Each card fills
// in as its call answers, so the page paints before the slowest one.
import { api, query } from './api.js';
import { dayBars, hBars, splitBar } from './charts.js';
import { failure, h, num, show, table } from './dom.js';

const card = (title, id) => h('section', { class: 'card', 'aria-labelledby': `${id}-h`, 'data-card': id }, h('h3', { id: `${id}-h` }, title), h('p', { class: 'muted' }, 'Loading…'));

/** Fill a card when its promise settles; a refusal (a scope this token lacks) is shown in the card. */
function fill(root, id, promise, draw) {
  const el = root.querySelector(`[data-card="${id}"]`);
  return promise.then(
    (data) => {
      show(el, el.querySelector('h3'), draw(data));
      el.dataset.ready = 'true';
    },
    (err) => {
      show(el, el.querySelector('h3'), failure(err));
      el.dataset.ready = 'error';
    },
  );
}

const byRows = (obj) => Object.entries(obj ?? {}).sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, num(v)]);

function library(stats, activity) {
  return [
    h('p', {}, h('span', { class: 'big' }, num(stats.items.active)), ' active items', h('span', { class: 'muted' }, ` (${num(stats.items.total)} with retired)`)),
    table('by layer', ['layer', { label: 'items', num: true }], byRows(stats.items.by_layer)),
    activity ? table('by kind', ['kind', { label: 'items', num: true }], byRows(activity.by_kind)) : null,
  ];
}

function logCard(stats, health, ctx) {
  const head = stats.head ?? health.head;
  const out = [
    h('p', {}, 'namespace ', h('code', {}, stats.namespace), `: ${num(stats.events)} events`),
    head ? h('p', {}, 'log head ', h('code', {}, `#${head.seq}`), ' ', h('code', { title: head.hash }, `${head.hash.slice(0, 12)}…`)) : h('p', { class: 'muted' }, 'log head: for a token with service:read'),
  ];
  if (ctx.session?.scopes?.includes('service:read')) {
    const result = h('div', { role: 'status', 'aria-live': 'polite' });
    const button = h('button', { type: 'button' }, 'Verify the chain now');
    button.addEventListener('click', async () => {
      button.disabled = true;
      show(result, h('p', { class: 'muted' }, 'Verifying…'));
      try {
        const r = await api('POST', '/v1/log/verify', {});
        show(
          result,
          h('p', { class: r.ok ? 'ok' : 'bad' }, r.ok ? `Chain verified: ${num(r.checked)} records up to #${r.head.seq}` : `Damage: ${r.damage?.kind ?? 'unknown'} at #${r.damage?.seq ?? '?'}`),
          h('p', { class: 'muted' }, `anchors: ${r.anchors.checked}/${r.anchors.total} checked${r.anchors.trusted_key ? ' (local key)' : ''}; verified at ${new Date().toLocaleTimeString()}`),
          r.warnings?.length ? h('p', { class: 'warn' }, r.warnings.join('; ')) : null,
        );
      } catch (err) {
        show(result, failure(err));
      }
      button.disabled = false;
    });
    out.push(button, result);
  }
  return out;
}

function storeCard(health) {
  const s = health.store ?? {};
  return [
    h('p', {}, 'store ', h('strong', {}, s.kind ?? '—'), s.connected === false ? h('span', { class: 'bad' }, ' · disconnected') : h('span', { class: 'ok' }, ' · connected')),
    health.projection_lag !== undefined ? h('p', {}, `projection lag: ${num(health.projection_lag)} events`) : null,
    s.node_head !== undefined ? h('p', {}, `node head #${s.node_head}, shared head #${s.table_head} (node lag ${num(s.replication_lag)})`) : null,
    health.stale ? h('p', { class: 'warn' }, 'answers may be stale') : null,
    health.projections_stalled ? h('p', { class: 'bad' }, `projections stalled: ${JSON.stringify(health.projections_stalled)}`) : null,
    health.vector_index ? h('p', { class: 'muted' }, `vector index: ${health.vector_index.kind ?? health.vector_index}${health.vector_index.reason ? ` (${health.vector_index.reason})` : ''}`) : null,
    h('p', {}, 'embedder ', h('code', {}, health.embedder ?? '—'), ' · judge ', h('code', {}, health.judge ?? '—')),
  ];
}

function embeddingCard(ingest) {
  const active = ingest.items?.active ?? 0;
  const pending = ingest.indexing?.pending ?? 0;
  const done = Math.max(0, active - pending);
  const job = ingest.indexing?.last_job;
  return [
    h('p', {}, h('span', { class: 'big' }, num(ingest.waiting_for_vectors)), ' items wait for vectors'),
    h('label', {}, `embedded ${num(done)} of ${num(active)}`, h('progress', { max: Math.max(1, active), value: done })),
    h('p', {}, ingest.indexing?.running ? 'the embedding job is running' : 'the embedding job is idle', ` · ${num(pending)} embeddings to compute`),
    job ? h('p', { class: 'muted' }, `last job: ${job.status}, ${num(job.embedded)}/${num(job.planned)} embedded in ${job.seconds}s (${job.model})`) : null,
  ];
}

function charts(a) {
  const days = a.per_day.map((d) => d.day);
  const delivered = a.turns.reduce((n, t) => n + t.delivered.length, 0);
  const held = a.turns.reduce((n, t) => n + Object.values(t.held).reduce((x, y) => x + y, 0), 0);
  return [
    h('h4', {}, 'Turns and items delivered per day'),
    dayBars('Turns and items delivered per day', days, [
      { label: 'turns', cls: 'bar', values: a.per_day.map((d) => d.turns) },
      { label: 'delivered', cls: 'bar2', values: a.per_day.map((d) => d.delivered) },
    ]),
    h('p', { class: 'legend' }, h('span', { class: 'sw a' }), 'turns', h('span', { class: 'sw b' }), 'items delivered'),
    h('h4', {}, 'Items added per day'),
    dayBars('Items added per day', days, [{ label: 'items added', cls: 'bar', values: a.per_day.map((d) => d.items_added) }]),
    h('h4', {}, `Delivered and held back, last ${a.turns.length} turns`),
    splitBar('Delivered and held back', [
      { label: 'delivered', cls: 'bar2', value: delivered },
      { label: 'held back', cls: 'bar3', value: held },
    ]),
    h('p', { class: 'legend' }, h('span', { class: 'sw b' }), `delivered ${delivered}`, h('span', { class: 'sw c' }), `held back ${held}`),
    h('h4', {}, `Candidates found per retrieval lane, last ${a.turns.length} turns`),
    laneBars(a.turns),
  ];
}

/** How many candidates each lane found over the listed turns, largest first. */
function laneBars(turns) {
  const totals = {};
  for (const t of turns) for (const [lane, n] of Object.entries(t.lanes ?? {})) totals[lane] = (totals[lane] ?? 0) + n;
  const rows = Object.entries(totals).sort((x, y) => y[1] - x[1]);
  if (!rows.length) return h('p', { class: 'muted' }, 'No recorded recall yet.');
  return hBars('Candidates found per retrieval lane', rows);
}

export async function render(main, ctx) {
  const ns = { namespace: ctx.ns };
  show(
    main,
    h('h2', {}, 'Overview'),
    h('div', { class: 'grid' }, card('Library', 'library'), card('Log and chain', 'log'), card('Store and models', 'store'), card('Embedding', 'embedding')),
    h('div', { class: 'grid' }, card('Activity, last 14 days', 'charts')),
  );
  const stats = api('GET', `/v1/stats${query(ns)}`);
  const health = api('GET', '/v1/health');
  const activity = api('GET', `/v1/activity${query({ ...ns, days: 14, limit: 50 })}`);
  await Promise.all([
    fill(main, 'library', Promise.all([stats, activity.catch(() => undefined)]), ([s, a]) => library(s, a)),
    fill(main, 'log', Promise.all([stats, health]), ([s, hl]) => logCard(s, hl, ctx)),
    fill(main, 'store', health, storeCard),
    fill(main, 'embedding', api('GET', '/v1/ingest/status'), embeddingCard),
    fill(main, 'charts', activity, charts),
  ]);
}
