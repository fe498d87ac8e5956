#!/usr/bin/env node
// The `kioku` command line. Each command lives in tools/commands/; this file wires
// flags to them and turns errors into exit codes (0 ok, 1 problem found, 2 usage/IO).
import { Command, CommanderError, Option } from 'commander';
import { EXIT, reportError } from './cli-util.js';
// Command modules load on use: `kioku replay` never pays for the HTTP server or the model runtime.
import type { verifyCommand } from './commands/verify.js';
import type { rebuildCommand } from './commands/rebuild.js';
import type { logExportCommand, logImportCommand, logShowCommand, logStatsCommand } from './commands/log.js';
import type { importCommand, reembedCommand } from './commands/import.js';
import type { coldReportCommand, deliveryReportCommand, recallCommand, replayCommand } from './commands/recall.js';
import type { serveCommand } from './commands/serve.js';
import type { mcpCommand } from './commands/mcp.js';
import type { doctorCommand } from './commands/doctor.js';
import type { askCommand } from './commands/ask.js';
import type { hookRunCommand } from './commands/hook.js';
import type { hookInstallCommand } from './commands/hook-install.js';
import type { evalCommand } from './commands/eval.js';
import type { storeInitCommand } from './commands/store.js';
import type { listCommand } from './commands/list.js';
import type { exportCommand } from './commands/export.js';
import type { backupCommand } from './commands/backup.js';
import type { statusCommand } from './commands/status.js';
import type { stopCommand } from './commands/stop.js';
import { packageVersion } from '../src/package-root.js';

const dataOption = (): Option => new Option('--data <dir>', 'data directory (default $KIOKU_DATA_DIR or ~/.kioku)');
const storeOption = (): Option => new Option('--store <url>', 'event store: leveldb (default, the log in the data dir) or postgres://… (default $KIOKU_STORE)');
const jsonOption = (): Option => new Option('--json', 'print one JSON object as the last line');

function action<A extends unknown[]>(run: (...args: A) => Promise<number>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    const flags = (args.find((a) => a !== null && typeof a === 'object' && !(a instanceof Command)) ?? {}) as { json?: boolean };
    try {
      process.exitCode = await run(...args);
    } catch (err) {
      process.exitCode = reportError(err, flags);
    }
  };
}

export function buildProgram(): Command {
  const program = new Command('kioku')
    .description('Kioku: a local-first, event-sourced knowledge and memory store for AI agents')
    .version(packageVersion(), '-V, --version', 'print the version')
    .showHelpAfterError()
    .exitOverride();

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
    .action(action((flags: Parameters<typeof serveCommand>[0]) => import('./commands/serve.js').then((m) => m.serveCommand(flags))));

  program
    .command('status')
    .description("is the library's service running: URL, pid, data dir, store, uptime, who started it (exit 0 running, 1 not)")
    .addOption(dataOption())
    .addOption(storeOption())
    .addOption(jsonOption())
    .action(action((flags: Parameters<typeof statusCommand>[0]) => import('./commands/status.js').then((m) => m.statusCommand(flags))));

  program
    .command('stop')
    .description("stop the library's service gracefully and keep it stopped (the hook and MCP do not restart it until kioku serve)")
    .addOption(dataOption())
    .addOption(jsonOption())
    .option('--timeout <s>', 'seconds to wait for it to exit', '30')
    .action(action((flags: Parameters<typeof stopCommand>[0]) => import('./commands/stop.js').then((m) => m.stopCommand(flags))));

  program
    .command('mcp')
    .description('the MCP tool set over stdio (finds or starts the service that owns the data dir; KIOKU_URL for a remote one)')
    .addOption(dataOption())
    .action(action((flags: Parameters<typeof mcpCommand>[0]) => import('./commands/mcp.js').then((m) => m.mcpCommand(flags))));

  program
    .command('doctor')
    .description('check a real connection: start kioku mcp, handshake, list tools, run a recall (exit 0 ready or degraded, 1 failed)')
    .addOption(dataOption())
    .addOption(jsonOption())
    .option('--query <text>', 'the recall to run')
    .option('--expect-id <id>', 'fail unless this id or evidence key is among the results')
    .option('--require-semantic', 'fail unless the vector lane was used')
    .option('--require-judge', 'fail unless the judge completed')
    .action(action((flags: Parameters<typeof doctorCommand>[0]) => import('./commands/doctor.js').then((m) => m.doctorCommand(flags))));

  const hook = program.command('hook').description('the agent hook for Claude Code and Codex');
  hook
    .command('run')
    .description("handle one hook event: the host's JSON on stdin, the host's output on stdout (always exit 0)")
    .addOption(dataOption())
    .option('--host <host>', 'claude (default) or codex', 'claude')
    .action(action((flags: Parameters<typeof hookRunCommand>[0]) => import('./commands/hook.js').then((m) => m.hookRunCommand(flags))));

  for (const [name, description, run] of [
    ['install', 'add the hook to Claude Code (settings.json) and/or Codex (hooks.json); idempotent, atomic, backed up', 'hookInstallCommand'],
    ['uninstall', 'remove exactly what install added', 'hookUninstallCommand'],
    ['status', 'what is installed where', 'hookStatusCommand'],
  ] as const) {
    hook
      .command(name)
      .description(description)
      .addOption(dataOption())
      .addOption(jsonOption())
      .option('--claude', 'Claude Code (the default when neither is named)')
      .option('--codex', 'Codex')
      .option('--project <dir>', "a project's settings instead of the user's")
      .option('--url <url>', 'a remote Kioku service for the hook to use')
      .option('--token <token>', 'its bearer token')
      .action(action((flags: Parameters<typeof hookInstallCommand>[0]) => import('./commands/hook-install.js').then((m) => m[run](flags))));
  }

  program
    .command('verify')
    .description('verify the hash chain and every signed anchor (exit 0 clean, 1 damaged)')
    .addOption(dataOption())
    .addOption(storeOption())
    .addOption(jsonOption())
    .option('--write-anchor', 'after a clean verify, sign the head and append it to the anchors file')
    .option('--key <file>', 'anchor key file (default $KIOKU_ANCHOR_KEY or <data>/keys/anchor-ed25519.pem)')
    .option('--anchors <file>', 'anchors file (default $KIOKU_ANCHORS_FILE or <data>/anchors.jsonl)')
    .action(action((flags: Parameters<typeof verifyCommand>[0]) => import('./commands/verify.js').then((m) => m.verifyCommand(flags))));

  program
    .command('rebuild')
    .description('rebuild projections from genesis (all, or the named ones)')
    .addOption(dataOption())
    .addOption(storeOption())
    .addOption(jsonOption())
    .option('--projection <name...>', 'only these projections')
    .action(action((flags: Parameters<typeof rebuildCommand>[0]) => import('./commands/rebuild.js').then((m) => m.rebuildCommand(flags))));

  program
    .command('import')
    .description('import markdown files (cards, wiki topics or daily notes) from a directory; idempotent')
    .argument('<kind>', 'cards | wiki | notes | jsonl (a file made by kioku export)')
    .argument('<dir>', 'directory of markdown files (searched recursively), or the jsonl file')
    .addOption(dataOption())
    .addOption(storeOption())
    .addOption(jsonOption())
    .option('--ns <namespace>', 'namespace to import into', 'private')
    .option('--prune', 'remove documents whose files were deleted')
    .option('--no-embed', 'do not run the embedding job after importing')
    .action(
      action((kind: string, dir: string, flags: Parameters<typeof importCommand>[2]) =>
        // jsonl: a file made by kioku export (src/knowledge/import-items.ts), not a directory of markdown
        kind === 'jsonl'
          ? import('./commands/import-jsonl.js').then((m) => m.importJsonlCommand(dir, flags))
          : import('./commands/import.js').then((m) => m.importCommand(kind, dir, flags)),
      ),
    );

  program
    .command('list')
    .description("browse a namespace's items in evidence-key order, a page at a time (the next with --cursor)")
    .addOption(dataOption())
    .addOption(storeOption())
    .addOption(jsonOption())
    .option('--ns <namespace>', 'namespace to list')
    .option('--layer <layer...>', 'card, wiki, memory, note, trace, episode, asset')
    .option('--kind <kind...>', 'memory kinds (fact, decision, …)')
    .option('--tag <tag...>', 'items carrying every tag named')
    .option('--entity <name>', 'items naming this entity')
    .option('--session <id>', "a session's items")
    .option('--since <time>', 'occurred at or after (ISO time, or a phrase: "last week")')
    .option('--until <time>', 'occurred at or before')
    .option('--text <substring>', 'title or text contains this (case-insensitive)')
    .option('--retired', 'superseded, forgotten and removed items too')
    .option('--limit <n>', 'items per page (1–500, default 50)')
    .option('--cursor <cursor>', 'the next page: the cursor the last page printed (same filters)')
    .action(action((flags: Parameters<typeof listCommand>[0]) => import('./commands/list.js').then((m) => m.listCommand(flags))));

  program
    .command('export')
    .description('export current knowledge (cards, wiki topics, memories; --history adds notes and traces) as JSON Lines (re-importable with `kioku import jsonl FILE`) or Markdown')
    .addOption(dataOption())
    .addOption(storeOption())
    .addOption(jsonOption())
    .option('--format <format>', 'jsonl or markdown', 'jsonl')
    .option('--history', 'also daily notes and conversation traces')
    .option('--out <file>', 'write here (default: stdout)')
    .option('--ns <namespace>', 'namespace to export')
    .action(action((flags: Parameters<typeof exportCommand>[0]) => import('./commands/export.js').then((m) => m.exportCommand(flags))));

  program
    .command('backup')
    .description("a consistent, verified copy of a library into DIR, while its service runs or not (the chain up to a head, checked, and shown to restore; the anchors)")
    .argument('<dir>', 'a new or empty directory')
    .addOption(dataOption())
    .addOption(storeOption())
    .addOption(jsonOption())
    .option('--live-digests', "also compare with the service's own projections at the backup head (the service holds writes while it digests them)")
    .action(action((dir: string, flags: Parameters<typeof backupCommand>[1]) => import('./commands/backup.js').then((m) => m.backupCommand(dir, flags))));

  program
    .command('restore')
    .description('a backup made by kioku backup as a new library (--data NEW): the chain imported and verified, projections rebuilt and checked against the backup (exit 1 if not equal)')
    .argument('<dir>', 'the backup directory')
    .addOption(dataOption())
    .addOption(storeOption())
    .addOption(jsonOption())
    .action(action((dir: string, flags: Parameters<typeof backupCommand>[1]) => import('./commands/backup.js').then((m) => m.restoreCommand(dir, flags))));

  program
    .command('reembed')
    .description('embed every item that has no vector from the model yet (resumable: run again to continue)')
    .addOption(dataOption())
    .addOption(storeOption())
    .addOption(jsonOption())
    .option('--model <kind>', 'embedder: use-lite | ollama | openai | local-onnx | hash (default $KIOKU_EMBEDDER or use-lite)')
    .action(action((flags: Parameters<typeof reembedCommand>[0]) => import('./commands/import.js').then((m) => m.reembedCommand(flags))));

  program
    .command('recall')
    .description('recall what the store knows about QUERY (the same core as HTTP and MCP)')
    .argument('<query>', 'what to recall')
    .addOption(dataOption())
    .addOption(storeOption())
    .addOption(jsonOption())
    .option('--ns <namespace>', 'namespace to read')
    .option('--limit <n>', 'records to return (1–50)', '10')
    .option('--no-wiki', 'leave wiki topics out')
    .option('--no-cards', 'leave cards out')
    .option('--no-memories', 'leave memories out')
    .option('--no-conversations', 'leave earlier conversations (traces) out')
    .option('--no-semantic', 'keyword lanes only (no model)')
    .option('--max-wiki <n>', 'at most N wiki sections')
    .option('--max-cards <n>', 'at most N card sections')
    .option('--tag <tag...>', 'only items carrying every tag named')
    .action(action((query: string, flags: Parameters<typeof recallCommand>[1]) => import('./commands/recall.js').then((m) => m.recallCommand(query, flags))));

  program
    .command('ask')
    .description('recall, then answer with the configured model (KIOKU_LLM_URL, _MODEL, _API_KEY) from the delivered evidence, citing it')
    .argument('<question>', 'what to ask')
    .addOption(dataOption())
    .addOption(storeOption())
    .addOption(jsonOption())
    .option('--ns <namespace>', 'namespace to read')
    .action(action((question: string, flags: Parameters<typeof askCommand>[1]) => import('./commands/ask.js').then((m) => m.askCommand(question, flags))));

  const report = program.command('report').description('reports from the usage counters');
  report
    .command('cold')
    .description('evidence considered at least N times and never judged relevant')
    .addOption(dataOption())
    .addOption(storeOption())
    .addOption(jsonOption())
    .option('--ns <namespace>', 'namespace', 'private')
    .option('--min-considered <n>', 'minimum times considered', '5')
    .action(action((flags: Parameters<typeof coldReportCommand>[0]) => import('./commands/recall.js').then((m) => m.coldReportCommand(flags))));

  report
    .command('delivery')
    .description('delivery outcomes of the last N days and the least-used repeated items (a lexical proxy)')
    .addOption(dataOption())
    .addOption(storeOption())
    .addOption(jsonOption())
    .option('--days <n>', 'days back', '7')
    .option('--ns <namespace>', 'only this namespace')
    .action(action((flags: Parameters<typeof deliveryReportCommand>[0]) => import('./commands/recall.js').then((m) => m.deliveryReportCommand(flags))));

  program
    .command('replay')
    .description('re-run recorded turns through the current delivery rules, or changed ones (no judge, no model, nothing appended)')
    .addOption(dataOption())
    .addOption(storeOption())
    .addOption(jsonOption())
    .option('--from <time>', 'ISO date or time (default: the beginning)')
    .option('--to <time>', 'ISO date or time (default: now)')
    .option('--ns <namespace>', 'only this namespace')
    .option('--retrieve', "also re-run retrieval against today's projections (and say so)")
    .option('--floor <v>', 'try another verdict floor (0–1; default 0.5)')
    .option('--history-floor <v>', 'try another floor for history items (0–1; default 0.75)')
    .option('--max-items <n>', 'try another item cap (0–3; default 3)')
    .option('--max-history <n>', 'try another cap on history items (default 1)')
    .option('--keep-partial-matches', 'try without the rule that holds an item matching only part of what a delivered one matches')
    .option('--partial-of <rule>', 'what a partial match is held behind: any_better_match (before issue 30), complete_match, higher_ranked_match (default)')
    .option('--knowledge-first', 'try without the rule that lets a history item above the best knowledge item keep a slot')
    .action(action((flags: Parameters<typeof replayCommand>[0]) => import('./commands/recall.js').then((m) => m.replayCommand(flags))));

  program
    .command('eval')
    .description('run the labelled recall and conversation cases against a fresh Kioku (exit 1 if any case fails)')
    .addOption(jsonOption())
    .option('--cases <files>', 'comma-separated case files (default evals/cases/recall.json,conversation.json)')
    .option('--only <ids>', 'comma-separated case ids: run only these')
    .option('--library <dir>', 'library to load (default evals/library)')
    .option('--transport <kind>', 'http (a real server process, default) or inproc', 'http')
    .option('--url <url>', 'evaluate a running service instead of a fresh one (its token from KIOKU_TOKEN)')
    .option('--live', 'with --url: evaluate the configured live library')
    .option('--embedder <kind>', 'embedder for the fresh store (default $KIOKU_EMBEDDER or use-lite)')
    .option('--judge <kind>', 'judge: local, llm or disabled')
    .option('--output <file>', 'write the full report as JSON')
    .option('--baseline <file>', 'compare with this report (default evals/reports/baseline.json)')
    .action(action((flags: Parameters<typeof evalCommand>[0]) => import('./commands/eval.js').then((m) => m.evalCommand(flags))));

  program
    .command('store')
    .description('the shared event store')
    .command('init')
    .description('create the PostgreSQL event table (index, append-only triggers); --grant gives a node role SELECT and INSERT only')
    .addOption(storeOption())
    .addOption(jsonOption())
    .option('--grant <role>', 'a role the nodes log in as')
    .action(action((flags: Parameters<typeof storeInitCommand>[0]) => import('./commands/store.js').then((m) => m.storeInitCommand(flags))));

  const log = program.command('log').description('inspect the event log');
  log
    .command('stats')
    .description('event counts and bytes per type and namespace')
    .addOption(dataOption())
    .addOption(storeOption())
    .addOption(jsonOption())
    .action(action((flags: Parameters<typeof logStatsCommand>[0]) => import('./commands/log.js').then((m) => m.logStatsCommand(flags))));
  log
    .command('show')
    .description('print one record')
    .argument('<seq>', 'sequence number')
    .addOption(dataOption())
    .addOption(storeOption())
    .addOption(jsonOption())
    .action(action((seq: string, flags: Parameters<typeof logShowCommand>[1]) => import('./commands/log.js').then((m) => m.logShowCommand(seq, flags))));

  log
    .command('export')
    .description('verify the chain, then write it byte for byte to a file (to move a library to another store)')
    .addOption(dataOption())
    .addOption(storeOption())
    .addOption(jsonOption())
    .requiredOption('--out <file>', 'the export file')
    .action(action((flags: Parameters<typeof logExportCommand>[0]) => import('./commands/log.js').then((m) => m.logExportCommand(flags))));
  log
    .command('import')
    .description('write an export into an empty store (every link checked on reading), then verify it')
    .argument('<file>', 'a file made by kioku log export')
    .addOption(dataOption())
    .addOption(storeOption())
    .addOption(jsonOption())
    .action(action((file: string, flags: Parameters<typeof logImportCommand>[1]) => import('./commands/log.js').then((m) => m.logImportCommand(file, flags))));

  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // help and version are not errors; everything else commander raises is usage
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    return reportError(err, {});
  }
  return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
}

process.exitCode = await main(process.argv);
