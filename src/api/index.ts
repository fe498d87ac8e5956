// The API of Kioku, for the doors (HTTP routes, MCP tools, the hook, the CLI).
//
// How a door serves one request — resolve the caller once, parse the body once, call one facade
// method, render its answer:
//
//   1. Authenticate (a token → a Principal; no token → ANONYMOUS) and, before reading the body,
//      `checkScope(principal, scope)` (a token without the scope learns nothing of the body's shape).
//   2. Parse the body/arguments once with the method's schema: `parseInput(inputSchemas.recall, raw,
//      'recall')`. The result is marked as parsed with that schema; the facade method, given the very
//      same object, does not parse it again. For HTTP, feed the same schema to fastify's validator
//      (a validatorCompiler that calls parseInput, so its KIOKU_INPUT_INVALID names the field) and to
//      the route's OpenAPI schema (`jsonSchema(schema)`); for MCP, derive the tool's input schema from
//      it and hand the parsed object on unchanged. Do not spread or copy the parsed object (`{ ...p,
//      namespace }` is a new, unmarked object and is parsed again): pass the namespace in the Caller.
//   3. `resolveCaller(principal, parsed.namespace, scope, 'http' | 'mcp' | 'hook' | 'cli')` → a Caller
//      {namespace, namespaces, actor, scopes, service, namespaceChosen}. The rules, error codes,
//      messages and details are src/access.ts's resolveAccess. A lookup by id resolves the id's own
//      namespace (an evidence key's `ev1:<ns>:…`) — for the anonymous user that is the one asked.
//   4. Call the facade with the parsed input and the Caller: `kioku.recall(parsed, caller)`. A Caller
//      is an Access, so every method takes it; below the facade the namespace it carries is taken
//      as settled (namespaceOf does not resolve it again) and nothing parses the input again.
//   5. Render the answer (JSON, MCP text, CLI lines). Errors are KiokuErrors with stable codes.
//
// `apiCounters.during(() => request())` counts the parses and resolutions one request caused: one
// of each for turns/start, recall and memories over HTTP and MCP (tests assert it).
export { resolveCaller, checkScope, isCaller, type Caller } from './caller.js';
export { apiCounters, type ApiCounts } from './counters.js';
export { inputSchemas, namespaceOnly, outputSchemas, querySchemas, type MethodWithInput } from './operations.js';
export * from './outputs.js';
export { parseInput, parsedWith } from '../knowledge/validate.js';
export { ANONYMOUS, SCOPES, type Principal, type Scope } from '../access.js';
export { wire, waitForVectorsSchema } from '../wire.js';
