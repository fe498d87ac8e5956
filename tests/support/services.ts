// `kioku serve` processes of a data dir, as `ps` shows them (any port, whoever started them).
import { spawnSync } from 'node:child_process';

export function servicesOf(dataDir: string): number[] {
  const ps = spawnSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).stdout;
  return ps
    .split('\n')
    .filter((l) => l.includes(' serve ') && l.includes(dataDir))
    .map((l) => Number(l.trim().split(/\s+/)[0]));
}
