// npm run bench:recall -- --sealing [--records N] [--turns N] [--rounds 3] [--no-model] [--json]
// The cost of sealing (issue 33) on the read path, in one run: the recall bench run as child
// processes with sealing on and off (KIOKU_SEAL=1 / 0), alternating round by round so a machine's
// load drifting over the run falls on both, each on a fresh library; medians and ratios of the
// turn-start p50 (with and without the query embedding). Sealed turns open the sealed texts of the
// candidates they judge and seal the trace they record.
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';

interface RecallRun {
  turnMs: { p50: number };
  embeddingExcludedMs: { p50: number };
}

function recallRun(sealed: boolean, args: string[]): RecallRun {
  const child = spawnSync(process.execPath, ['--import', 'tsx', new URL('./recall.ts', import.meta.url).pathname, ...args, '--json'], {
    env: { ...process.env, KIOKU_SEAL: sealed ? '1' : '0' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const last = child.stdout.trim().split('\n').at(-1) ?? '';
  if (child.status !== 0 || !last.startsWith('{')) throw new Error(`bench:recall (sealed ${sealed}) exited ${child.status}`);
  return JSON.parse(last) as RecallRun;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : Math.round(((s[m - 1]! + s[m]!) / 2) * 10) / 10;
};

export function recallSealingBench(options: { args: string[]; rounds: number; json: boolean }): void {
  const sealed: RecallRun[] = [];
  const plain: RecallRun[] = [];
  for (let r = 0; r < options.rounds; r++) {
    process.stderr.write(`  round ${r + 1}/${options.rounds}: plain, then sealed\n`);
    plain.push(recallRun(false, options.args));
    sealed.push(recallRun(true, options.args));
  }
  const p50 = (runs: RecallRun[], k: 'turnMs' | 'embeddingExcludedMs'): number => median(runs.map((x) => x[k].p50));
  const ratio = (k: 'turnMs' | 'embeddingExcludedMs'): number => Math.round((p50(sealed, k) / p50(plain, k)) * 100) / 100;
  const result = {
    bench: 'recall-sealing',
    args: options.args,
    rounds: options.rounds,
    turnP50Ms: { sealed: p50(sealed, 'turnMs'), plain: p50(plain, 'turnMs'), ratio: ratio('turnMs') },
    embeddingExcludedP50Ms: {
      sealed: p50(sealed, 'embeddingExcludedMs'),
      plain: p50(plain, 'embeddingExcludedMs'),
      ratio: ratio('embeddingExcludedMs'),
    },
    runs: { sealed: sealed.map((x) => x.turnMs.p50), plain: plain.map((x) => x.turnMs.p50) },
    node: process.version,
    cores: cpus().length,
  };
  const rows: [string, string][] = [
    [`turn p50 ms, sealed / plain (median of ${options.rounds})`, `${result.turnP50Ms.sealed} / ${result.turnP50Ms.plain} (×${result.turnP50Ms.ratio})`],
    ['embedding excluded p50 ms, sealed / plain', `${result.embeddingExcludedP50Ms.sealed} / ${result.embeddingExcludedP50Ms.plain} (×${result.embeddingExcludedP50Ms.ratio})`],
  ];
  for (const [k, v] of rows) process.stdout.write(`${k.padEnd(52)} ${v}\n`);
  if (options.json) process.stdout.write(`${JSON.stringify(result)}\n`);
}
