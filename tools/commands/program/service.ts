// kioku serve | status | stop | ui: the library's HTTP service, its lifecycle and its web page.
import { Option } from 'commander';
import type { ServeFlags } from '../serve.js';
import type { StatusFlags } from '../status.js';
import type { StopFlags } from '../stop.js';
import type { UiFlags } from '../ui.js';
import { action, dataOption, jsonOption, onStore, storeOption, type Define } from './options.js';

export const serve: Define = (program) =>
  program
    .command('serve')
    .description('run the HTTP service (loopback, port 18972 by default)')
    .addOption(dataOption())
    .addOption(storeOption())
    .option('--host <host>', 'address to listen on (default $KIOKU_HOST or 127.0.0.1)')
    .option('--port <port>', 'port (default $KIOKU_PORT or 18972)')
    .option('--quiet', 'no request log, even with --log-requests')
    .option('--log-requests', 'log every request to stdout as JSON, query strings redacted (also KIOKU_LOG_REQUESTS=1)')
    .addOption(new Option('--started-by <who>', 'hook or mcp: set by the client that starts the service').hideHelp())
    .action(action((flags: ServeFlags) => import('../serve.js').then((m) => m.serveCommand(flags))));

export const status: Define = (program) =>
  onStore(
    program.command('status').description("is the library's service running: URL, pid, data dir, store, uptime, who started it (exit 0 running, 1 not)"),
  ).action(action((flags: StatusFlags) => import('../status.js').then((m) => m.statusCommand(flags))));

export const stop: Define = (program) =>
  program
    .command('stop')
    .description("stop the library's service gracefully and keep it stopped (the hook and MCP do not restart it until kioku serve)")
    .addOption(dataOption())
    .addOption(jsonOption())
    .option('--timeout <s>', 'seconds to wait for it to exit', '30')
    .action(action((flags: StopFlags) => import('../stop.js').then((m) => m.stopCommand(flags))));

export const ui: Define = (program) =>
  onStore(program.command('ui').description("open the service's web page (/ui) in the browser; prints its URL when there is no browser"))
    .option('--no-open', 'print the URL only')
    .action(action((flags: UiFlags) => import('../ui.js').then((m) => m.uiCommand(flags))));
