// `kioku hook run` without the rest of the CLI: the host spawns it on every prompt, so it loads
// only what a hook needs (no commander, no zod, no recall core). bin/kioku.js routes here.
import { parseArgs } from 'node:util';
import { hookRunCommand } from './commands/hook.js';

const { values } = parseArgs({ args: process.argv.slice(4), options: { host: { type: 'string' }, data: { type: 'string' } }, strict: false });
const code = await hookRunCommand({
  ...(typeof values.host === 'string' ? { host: values.host } : {}),
  ...(typeof values.data === 'string' ? { data: values.data } : {}),
});
// leave as soon as the answer is out: an idle keep-alive socket would hold the host's prompt for nothing
await new Promise<void>((done) => process.stdout.write('', () => done()));
process.exit(code);
