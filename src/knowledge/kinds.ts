// The kinds of memory (a module of its own: the MCP schema needs the list, not the commands).
export const MEMORY_KINDS = ['fact', 'decision', 'commitment', 'preference', 'directive', 'constraint', 'procedure', 'event', 'observation', 'note'] as const;
export type MemoryKind = (typeof MEMORY_KINDS)[number];
