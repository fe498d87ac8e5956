import { readFileSync } from 'node:fs';
const url = JSON.parse(readFileSync('/tmp/wsrv/kioku.run.json', 'utf8')).url;
const post = (body: unknown) => fetch(`${url}/v1/memories`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json());
for (const phase of ['warm', 'measure']) {
  const n = phase === 'warm' ? 300 : 2000;
  const t = performance.now();
  for (let i = 0; i < n; i++) await post({ memories: [{ kind: 'fact', text: `${phase} fact number ${i} about the deploy pipeline and the billing service` }] });
  console.log(phase, Math.round(n / ((performance.now() - t) / 1000)), 'writes/s sequential');
}
