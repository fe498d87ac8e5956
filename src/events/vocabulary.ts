// The names the whole API shares, written once: the layers an item lives in, the roles of a
// dialogue's messages, and how a recall retrieved. The event catalog, the knowledge commands, the
// wire schemas, the facade and the doors (MCP tool schemas, OpenAPI) all take them from here.

/** Every layer, in the order of their group slots (LAYER_INDEX in src/knowledge/evidence.ts): never reorder. */
export const LAYERS = ['card', 'wiki', 'memory', 'note', 'trace', 'episode', 'asset'] as const;
export type Layer = (typeof LAYERS)[number];

/** Who wrote a message of a dialogue or an episode. */
export const MESSAGE_ROLES = ['user', 'assistant', 'system', 'tool'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

/** How a recall found its records (the packet's `retrieval_mode`, recorded in recall.performed). */
export const RETRIEVAL_MODES = ['hybrid', 'keyword', 'vector', 'conversation_only', 'skipped'] as const;
export type RetrievalMode = (typeof RETRIEVAL_MODES)[number];
