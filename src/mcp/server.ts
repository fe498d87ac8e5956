// The MCP door: the tool set over one Kioku facade (local or remote), grouped by concern in
// src/mcp/tools/ — recall and search, writes, browse, assets and episodes, team. Each tool says in
// its description *when* an agent should call it: directives at the start of a session, recall
// before answering, write when a topic closes, browse by topic or time when a search misses.
// Every tool is one call of the facade, its arguments parsed once with the facade method's own
// schema (src/mcp/tool.ts): the low-level SDK server is used so that this parse is the only one
// (McpServer would validate with a schema of its own first). No second search path.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Kioku } from '../kioku.js';
import { packageVersion } from '../package-root.js';
import type { McpTool, ToolAnswer } from './tool.js';
import { assetAndEpisodeTools } from './tools/assets-episodes.js';
import { browseTools } from './tools/browse.js';
import { recallTools } from './tools/recall.js';
import { teamTools } from './tools/team.js';
import { writeTools } from './tools/writes.js';
import { privacyTools } from './tools/privacy.js';

export interface McpOptions {
  /** the facade, resolved on first use so that the handshake never waits for a service or a model */
  kioku: () => Promise<Kioku>;
  /** the namespace every call acts in (KIOKU_NAMESPACE); the token's or private when absent */
  namespace?: string | undefined;
  now?: () => Date;
}

/** Every tool, in the order tools/list shows them. */
export const MCP_TOOLS: readonly McpTool[] = [...recallTools, ...writeTools, ...browseTools, ...assetAndEpisodeTools, ...teamTools, ...privacyTools];

/**
 * The rhythm of a session, given to the client at initialize (MCP `instructions`): when to call
 * what. Each tool's description repeats its own part.
 */
export const SESSION_RHYTHM = [
  'Kioku is your long-term memory for this user. The rhythm of a session:',
  '1. At the start: call recall_directives. Follow the standing instructions, habits and constraints it returns for the whole session; its `now` is the authoritative current time (you have no reliable clock). In a team (list_members answers members), also call inbox: notes and assignments from colleagues wait there; ack each once handled.',
  "2. Before answering each turn: call search_memory with `query` (the user's words plus the gist of your last reply) and `terms` (expansion words: synonyms, names, the other language). This is thinking, not something to wait to be asked for. Before writing code or a design, also call recall_constraints.",
  '3. When a topic closes: call write_memory once with the decisions, commitments, preferences and facts worth keeping (a batch; kind, terms, entities). Name supersede_ids when a memory replaces an older one; otherwise look at the supersede_candidates it returns.',
  '4. When the user asks about the past and a search misses, switch entry points: recall_timeline (a time range, "last week"), recall_topic (an entity), recall_episodes (the verbatim dialogue), get_related (follow links from an item you found).',
  'Use what applies; ignore the rest without mentioning it. Results are ranked and bounded: ask get_memory for one item in full.',
].join('\n');

export function createMcpServer(options: McpOptions, tools: readonly McpTool[] = MCP_TOOLS): Server {
  const server = new Server({ name: 'kioku', version: packageVersion() }, { capabilities: { tools: { listChanged: true } }, instructions: SESSION_RHYTHM });
  const context = { namespace: options.namespace || undefined, now: options.now ?? (() => new Date()) };
  const byName = new Map(tools.map((t) => [t.name, t]));
  // the same JSON Schema the SDK's McpServer would list: the arguments as a client may send them
  const listed = tools.map((t) => ({ name: t.name, description: t.description, inputSchema: { ...z.toJSONSchema(t.arguments, { target: 'draft-7', io: 'input' }), type: 'object' as const } }));
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<ToolAnswer> => {
    const tool = byName.get(request.params.name);
    if (!tool) return { content: [{ type: 'text', text: `Tool ${request.params.name} not found` }], isError: true };
    return tool.run(request.params.arguments ?? {}, options.kioku, context);
  });
  return server;
}
