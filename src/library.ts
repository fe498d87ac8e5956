// Which library a command, the MCP server or the hook works on, and which service owns it —
// decided here once, the same way everywhere (issue 31: `kioku import … --data d2` wrote into
// the default library because one path read the flags and another did not). The order:
//   1. the data dir: --data, else KIOKU_DATA_DIR, else ~/.kioku; the store: --store, else
//      KIOKU_STORE, else the LevelDB log in the data dir;
//   2. the service: KIOKU_URL when neither --data nor --store is on the command line (a flag
//      names a library, and beats the environment); else the service this data dir's run file
//      names; else none (a command then opens the store itself). `kioku mcp` and the hook take
//      KIOKU_URL whenever it is set (clientMode): `kioku hook install --url U` writes it beside
//      the hook's --data, which then only says where the hook keeps its log and spool.
// KIOKU_HOST / KIOKU_PORT say where `kioku serve` listens; they never choose the library.
// Kept free of zod and the core: the hook loads this on every prompt.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { resolvePaths, type KiokuPaths, type PathOverrides, type StoreLocation } from './config.js';
import { readRunFile, readStopMarker, runFilePath, type RunInfo, type StopMarker } from './run-file.js';

export interface Library {
  /** --data, else KIOKU_DATA_DIR, else ~/.kioku (absolute) */
  dataDir: string;
  store: StoreLocation;
  paths: KiokuPaths;
  /** the service to ask: KIOKU_URL, or the one the run file names; undefined when none runs */
  url?: string;
  /** where `url` came from */
  source?: 'KIOKU_URL' | 'run file';
  /** this data dir's run file (whether or not it exists) */
  runFile: string;
  /** the live service of this data dir, from its run file (also in remote mode, for status) */
  running?: RunInfo;
  /** KIOKU_URL names the service: never open local data, never follow a run file */
  remote: boolean;
  /** the user stopped this library's service (kioku stop, Ctrl-C): do not start it behind their back */
  stopped?: StopMarker;
}

export function resolveLibrary(flags: PathOverrides = {}, env: NodeJS.ProcessEnv = process.env, options: { clientMode?: boolean } = {}): Library {
  const paths = resolvePaths(flags, env);
  const running = readRunFile(paths.dataDir);
  const stopped = running ? undefined : readStopMarker(paths.dataDir);
  const base: Library = {
    dataDir: paths.dataDir,
    store: paths.store,
    paths,
    runFile: runFilePath(paths.dataDir),
    remote: false,
    ...(running ? { running } : {}),
    ...(stopped ? { stopped } : {}),
  };
  const named = !options.clientMode && (flags.data !== undefined || flags.store !== undefined);
  const kiokuUrl = env['KIOKU_URL']?.trim();
  if (kiokuUrl && !named) return { ...base, remote: true, url: kiokuUrl.replace(/\/+$/, ''), source: 'KIOKU_URL' };
  if (running) return { ...base, url: running.url, source: 'run file' };
  return base;
}

/** The command that starts this library's service, for messages: `kioku serve`, with `--data DIR` unless it is the default. */
export function serveHint(library: Pick<Library, 'dataDir'>): string {
  return library.dataDir === resolve(join(homedir(), '.kioku')) ? 'kioku serve' : `kioku serve --data ${quoteArg(library.dataDir)}`;
}

/** The same for `kioku stop`. */
export function stopHint(library: Pick<Library, 'dataDir'>): string {
  return serveHint(library).replace('kioku serve', 'kioku stop');
}

/** Where a command's answer came from, for its output. */
export function describeService(library: Library): string {
  if (library.source === 'KIOKU_URL') return `the service at ${library.url} (KIOKU_URL)`;
  return `the service at ${library.url}${library.running ? ` (pid ${library.running.pid})` : ''}`;
}

function quoteArg(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
