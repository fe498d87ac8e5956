export {
  Knowledge,
  MEMORY_KINDS,
  memoryInputSchema,
  writeMemoriesSchema,
  type KnowledgeStore,
  type MemoryInput,
  type WriteMemoriesResult,
  type DocumentWriteResult,
} from './commands.js';
export {
  evidenceKey,
  parseEvidenceKey,
  documentKey,
  fingerprint,
  normaliseBody,
  contentHash,
  LAYERS,
  KNOWLEDGE_LAYERS,
  itemIdSchema,
  type Layer,
  type EvidenceRef,
} from './evidence.js';
export { KnowledgeFold, sectionSlug } from './fold.js';
export type { Item, ItemChange, RetiredStatus, Tombstone } from './item.js';
export { parseFrontMatter, splitSections, isCardMetadataHeading, relatedCardIds } from './markdown.js';
export {
  importDirectory,
  importDocuments,
  readMarkdownFiles,
  documentIdOf,
  idFromPath,
  IMPORT_KINDS,
  type ImportFile,
  type ImportKind,
  type ImportOptions,
  type ImportSummary,
} from './importer.js';
