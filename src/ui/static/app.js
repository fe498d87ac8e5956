// The page's shell: who is signed in (or the sign-in form), the namespace, and a hash router that
// hands each page its part of the address. Pages live in their own modules, loaded on first use.
import { api, ApiError, setCsrf } from './api.js';
import { failure, h, show } from './dom.js';

const PAGES = {
  overview: () => import('./overview.js'),
  turns: () => import('./turns.js'),
  turn: () => import('./turns.js'),
  library: () => import('./library.js'),
  item: () => import('./item.js'),
  cold: () => import('./reports.js'),
  delivery: () => import('./reports.js'),
};

const main = document.getElementById('main');
const who = document.getElementById('who');
const ctx = { session: null, ns: undefined };

/** The namespace the page reads: the token's, or the one the anonymous owner picked (none = the default). */
function namespace() {
  return ctx.session?.namespace ?? (sessionStorage.getItem('kioku-ns') || undefined);
}

function parseHash() {
  const raw = location.hash.replace(/^#\/?/, '') || 'overview';
  const [path, qs = ''] = raw.split('?');
  const [page, ...rest] = path.split('/');
  return { page, arg: rest.length ? decodeURIComponent(rest.join('/')) : undefined, params: new URLSearchParams(qs) };
}

async function route() {
  const { page, arg, params } = parseHash();
  const load = PAGES[page] ?? PAGES.overview;
  const name = PAGES[page] ? page : 'overview';
  for (const a of document.querySelectorAll('nav a')) {
    const target = a.getAttribute('href').slice(2);
    if (target === name || (name === 'turn' && target === 'turns') || (name === 'item' && target === 'library')) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  ctx.ns = namespace();
  show(main, h('p', { class: 'muted' }, 'Loading…'));
  try {
    const mod = await load();
    await mod.render(main, { ...ctx, page: name, arg, params });
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return signIn('Your session ended; sign in again.');
    show(main, h('h2', {}, 'Something went wrong'), failure(err));
  }
  document.title = `Kioku — ${main.querySelector('h2')?.textContent ?? name}`;
}

function showWho() {
  const s = ctx.session;
  const out = s.anonymous
    ? [h('span', {}, 'local owner (no tokens) · namespace '), namespacePicker()]
    : [h('span', {}, `${s.name} · namespace `), h('code', {}, s.namespace), ' ']
  ;
  if (!s.anonymous) out.push(h('button', { type: 'button', onclick: signOut }, 'Sign out'));
  show(who, out);
}

/** The owner's namespace field, offering the namespaces the log holds (service:read: the anonymous owner has it). */
function namespacePicker() {
  const list = h('datalist', { id: 'ns-list' });
  const input = h('input', { id: 'ns', list: 'ns-list', 'aria-label': 'namespace', value: sessionStorage.getItem('kioku-ns') ?? '', placeholder: 'private', size: 12 });
  api('GET', '/v1/log/stats').then(
    (s) => show(list, Object.keys(s.by_namespace ?? {}).sort().map((ns) => h('option', { value: ns }))),
    () => undefined,
  );
  input.addEventListener('change', () => {
    sessionStorage.setItem('kioku-ns', input.value.trim());
    void route();
  });
  return [input, list];
}

async function signOut() {
  await api('POST', '/ui/session/end');
  setCsrf(null);
  ctx.session = null;
  signIn('Signed out.');
}

function signIn(message) {
  show(who);
  const token = h('input', { id: 'token', name: 'token', type: 'password', autocomplete: 'current-password', required: true, 'aria-describedby': 'token-help' });
  const status = h('div', { role: 'status', 'aria-live': 'polite' }, message ? h('p', { class: 'muted' }, message) : null);
  const form = h(
    'form',
    { id: 'signin' },
    h('label', { for: 'token' }, 'Token', token),
    h('p', { id: 'token-help', class: 'muted' }, 'A token from the auth file. It is sent once and kept out of the address bar; the page then uses a session cookie bound to its namespace and scopes.'),
    h('button', { type: 'submit', class: 'primary' }, 'Sign in'),
    status,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      const s = await api('POST', '/ui/session', { token: token.value });
      token.value = '';
      start(s);
    } catch (err) {
      show(status, failure(err));
    }
  });
  show(main, h('section', { class: 'signin' }, h('h2', {}, 'Sign in to Kioku'), form));
  token.focus();
}

function start(session) {
  ctx.session = session;
  setCsrf(session.csrf);
  showWho();
  void route();
}

window.addEventListener('hashchange', () => {
  if (ctx.session) void route().then(() => main.focus({ preventScroll: true }));
});

const session = await api('GET', '/ui/session');
if (session.signed_in) start(session);
else signIn();
