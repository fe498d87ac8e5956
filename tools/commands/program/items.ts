// kioku import | list | export | reembed: a namespace's items in and out (markdown or a jsonl
// export in, a page of them to read, all of them out, their vectors made).
import type { ExportFlags } from '../export.js';
import type { ImportFlags, ReembedFlags } from '../import.js';
import type { ListFlags } from '../list.js';
import { action, onStore, type Define } from './options.js';

export const importItems: Define = (program) =>
  onStore(
    program
      .command('import')
      .description('import markdown files (cards, wiki topics or daily notes) from a directory; idempotent')
      .argument('<kind>', 'cards | wiki | notes | jsonl (a file made by kioku export)')
      .argument('<dir>', 'directory of markdown files (searched recursively), or the jsonl file'),
  )
    .option('--ns <namespace>', 'namespace to import into', 'private')
    .option('--prune', 'remove documents whose files were deleted')
    .option('--no-embed', 'do not run the embedding job after importing')
    .action(
      action((kind: string, dir: string, flags: ImportFlags) =>
        // jsonl: a file made by kioku export (src/knowledge/import-items.ts), not a directory of markdown
        kind === 'jsonl'
          ? import('../import-jsonl.js').then((m) => m.importJsonlCommand(dir, flags))
          : import('../import.js').then((m) => m.importCommand(kind, dir, flags)),
      ),
    );

export const list: Define = (program) =>
  onStore(program.command('list').description("browse a namespace's items in evidence-key order, a page at a time (the next with --cursor)"))
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
    .action(action((flags: ListFlags) => import('../list.js').then((m) => m.listCommand(flags))));

export const exportItems: Define = (program) =>
  onStore(
    program
      .command('export')
      .description(
        'export current knowledge (cards, wiki topics, memories; --history adds notes and traces) as JSON Lines (re-importable with `kioku import jsonl FILE`) or Markdown',
      ),
  )
    .option('--format <format>', 'jsonl or markdown', 'jsonl')
    .option('--history', 'also daily notes and conversation traces')
    .option('--out <file>', 'write here (default: stdout)')
    .option('--ns <namespace>', 'namespace to export')
    .action(action((flags: ExportFlags) => import('../export.js').then((m) => m.exportCommand(flags))));

export const reembed: Define = (program) =>
  onStore(program.command('reembed').description('embed every item that has no vector from the model yet (resumable: run again to continue)'))
    .option('--model <kind>', 'embedder: use-lite | ollama | openai | local-onnx | hash (default $KIOKU_EMBEDDER or use-lite)')
    .action(action((flags: ReembedFlags) => import('../import.js').then((m) => m.reembedCommand(flags))));
