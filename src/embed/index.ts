export { normalise, type Embedder } from './types.js';
export { HashedEmbedder } from './hashed.js';
export { UseLiteEmbedder } from './use-lite.js';
export { OllamaEmbedder, OpenAiEmbedder, type HttpEmbedderOptions } from './http.js';
export { OnnxEmbedder } from './onnx.js';
export { createEmbedder, embedderConfigFromEnv, EMBEDDER_KINDS, type EmbedderConfig, type EmbedderKind } from './registry.js';
export { embedDocuments, chunkText } from './chunk.js';
export { CachedEmbedder } from './cached.js';
