// The MCP door's edge (src/mcp/tool.ts): a tool call is parsed once, with the facade method's own
// schema, and its caller resolved once; the facade takes the parsed input without parsing it again.
// The real server (createMcpServer) and the SDK's own client over the SDK's in-memory transport,
// in this process, so that src/api's counters see every parse and resolution (the stdio tests in
// mcp.test.ts drive the same server as a child process). And no tool declares an argument the
// facade method's schema does not know.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { apiCounters, inputSchemas } from '../src/api/index.js';
import { HashedEmbedder } from '../src/embed/index.js';
import { runHook } from '../src/hook/run.js';
import { openKioku, type LocalKioku } from '../src/kioku.js';
import { createMcpServer, MCP_TOOLS } from '../src/mcp/server.js';
import { BESIDE_INPUT, TOOL_ONLY, type McpTool } from '../src/mcp/tool.js';
import { tempDir } from './helpers.js';
import type { ToolResult } from './support/mcp-client.js';

describe('one parse and one resolution per MCP call, counted in process', () => {
  const data = tempDir();
  let kioku: LocalKioku;
  const clients: Client[] = [];

  /** A client of a real MCP server over `kioku`, acting in `namespace` (KIOKU_NAMESPACE) when given. */
  async function connect(namespace?: string): Promise<Client> {
    const server = createMcpServer({ kioku: async () => kioku, namespace });
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'kioku-test', version: '0.0.0' });
    await client.connect(clientSide);
    clients.push(client);
    return client;
  }
  const call = (c: Client, name: string, args: Record<string, unknown>) => apiCounters.during(() => c.callTool({ name, arguments: args }) as Promise<ToolResult>);

  beforeAll(async () => {
    kioku = await openKioku({ data: data.path, embedder: new HashedEmbedder(32) });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await kioku.close();
    data.cleanup();
  });

  it('write_memory and recall: exactly one each, with and without KIOKU_NAMESPACE', async () => {
    for (const client of [await connect(), await connect('private')]) {
      const write = await call(client, 'write_memory', { memories: [{ id: 'rollback', kind: 'procedure', text: 'Roll back the billing service with scripts/rollback.sh.' }] });
      expect(write.result.isError).toBeFalsy();
      expect(write.result.structuredContent).toMatchObject({ ids: ['rollback'] });
      expect(write.counts).toEqual({ parses: 1, resolutions: 1 });

      const recall = await call(client, 'recall', { message: 'how do I roll back billing?', options: { semantic: false } });
      expect(recall.result.isError).toBeFalsy();
      expect(JSON.stringify(recall.result.structuredContent)).toContain('ev1:private:memory:rollback');
      expect(recall.counts).toEqual({ parses: 1, resolutions: 1 });
    }
  });

  it('a refused call is parsed once, resolved never, and names the field the facade names', async () => {
    const client = await connect();
    const bad = await call(client, 'write_memory', { memories: [{ kind: 'gossip', text: 'x' }] });
    expect(bad.result).toMatchObject({ isError: true, structuredContent: { error: { code: 'KIOKU_INPUT_INVALID' } } });
    expect(bad.result.content[0]?.text).toMatch(/^KIOKU_INPUT_INVALID: write_memory: memories\.0\.kind: /);
    expect(bad.counts).toEqual({ parses: 1, resolutions: 0 });
  });

  it('a refused argument is named as the tool calls it, not by the facade field it becomes (recall: message, not query)', async () => {
    const client = await connect();
    const bad = await call(client, 'recall', { message: 42 });
    expect(bad.result).toMatchObject({ isError: true, structuredContent: { error: { code: 'KIOKU_INPUT_INVALID' } } });
    expect(bad.result.content[0]?.text).toMatch(/^KIOKU_INPUT_INVALID: recall: message: /);
    expect(bad.result.content[0]?.text).not.toContain('query');
  });

  it('a turn started by the hook: one parse and one resolution per facade call (open the session, start the turn)', async () => {
    const prompt = JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 'count-1', prompt: 'how do I roll back billing?' });
    const turn = await apiCounters.during(() => runHook(prompt, { data: data.path, host: 'claude', env: {}, kioku: async () => kioku }));
    expect(turn.result.problem).toBeUndefined();
    expect(turn.counts).toEqual({ parses: 2, resolutions: 2 });
  });
});

/** The arguments of `tool` that name no field of its facade method's input (nor the id it takes beside it, nor one the tool checks itself). */
function unknownArguments(tool: McpTool): string[] {
  const facade = tool.facade;
  if (!facade) return [];
  return Object.keys(tool.arguments.shape).filter((arg) => {
    const into = facade.into[arg];
    return into === undefined || (into !== BESIDE_INPUT && into !== TOOL_ONLY && !(into in facade.schema.shape));
  });
}

describe('MCP tool arguments come from the facade', () => {
  // tools whose facade method takes no input schema (a lookup by key, an asset's ticket)
  // inbox, outbox, ack and notify are facade methods since issue 34 (their arguments are its fields); list_spaces and
  // list_members too since namespaceReadTool (the facade's org, no argument of their own)
  const OWN_ARGUMENTS = ['get_memory', 'get_related', 'get_asset'];

  it('every argument of every tool is a field of its facade method’s schema (renamed where the tool names it otherwise)', () => {
    for (const tool of MCP_TOOLS) {
      if (OWN_ARGUMENTS.includes(tool.name)) expect(tool.facade, tool.name).toBeUndefined();
      else expect(tool.facade, `${tool.name} has no facade schema`).toBeDefined();
      expect(unknownArguments(tool), tool.name).toEqual([]);
    }
    expect(MCP_TOOLS.filter((t) => !t.facade).map((t) => t.name)).toEqual(OWN_ARGUMENTS);
  });

  it('the check fails for a tool that declares an argument the facade does not know', () => {
    const bad: McpTool = {
      name: 'bad_recall',
      description: 'a recall with a colour',
      arguments: z.object({ message: z.string(), colour: z.string() }),
      facade: { schema: inputSchemas.recall, into: { message: 'query', colour: 'colour' } },
      run: async () => ({ content: [] }),
    };
    expect(unknownArguments(bad)).toEqual(['colour']);
    expect(unknownArguments({ ...bad, facade: { schema: inputSchemas.recall, into: { message: 'query' } } })).toEqual(['colour']);
  });
});
