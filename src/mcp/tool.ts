// What an MCP tool is: a name, a description that says *when* an agent should call it, its
// arguments, and one facade call rendered as a short text plus structured content. The arguments
// are the facade method's own fields (src/api inputSchemas), picked and renamed where the tool
// names them otherwise (recall's `message` is the facade's `query`); a tool declares an argument
// the facade does not know only as an `extra` that names the field it folds into (or the id the
// method takes beside its input). A call is parsed once, with the facade method's schema
// (parseInput, which marks it), and handed to the facade unchanged, which then does not parse it
// again; the caller is resolved once (resolveCaller). A Kioku error is an answer the agent can act
// on (isError with its code), never a crash of the server.
import { z } from 'zod';
import { ANONYMOUS, namespaceOnly, parseInput, resolveCaller, type Caller, type Scope } from '../api/index.js';
import { isKiokuError, KiokuError } from '../errors.js';
import type { Kioku } from '../kioku.js';

export type ToolAnswer = { content: { type: 'text'; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

/** What every tool of one server shares. */
export interface ToolContext {
  /** the namespace every call acts in (KIOKU_NAMESPACE); the token's, else private, when absent */
  namespace: string | undefined;
  now: () => Date;
}

/** A tool's answer before it goes on the wire: the text the agent reads, and the structured content. */
export interface Rendered {
  text: string;
  data: object;
}

/** Where a tool argument goes: a field of the facade method's input, or the id the method takes beside it. */
export type Into = string;
export const BESIDE_INPUT = '(id)';
/** An argument the tool itself checks and the facade never sees (purge's `confirm`). */
export const TOOL_ONLY = '(tool)';

export interface McpTool {
  readonly name: string;
  readonly description: string;
  /** the arguments as the client sees them (tools/list) */
  readonly arguments: z.ZodObject;
  /** the facade method's input schema, and each argument's field in it (tests check every one is known) */
  readonly facade?: { schema: z.ZodObject; into: Readonly<Record<string, Into>> };
  run(args: Record<string, unknown>, kioku: () => Promise<Kioku>, context: ToolContext): Promise<ToolAnswer>;
}

type Shape<S extends z.ZodObject> = S['shape'];

export interface KiokuToolDef<S extends z.ZodObject, E extends z.ZodRawShape> {
  name: string;
  description: string;
  /** the facade method's input schema (inputSchemas.<method>) */
  input: S;
  /** the facade fields offered as arguments, by argument name (the same name unless the tool renames it) */
  fields: Record<string, keyof Shape<S> & string>;
  /** other names an argument is also accepted by (search_memory's `sentence` for `query`): alias → argument; both are listed optional, giving both is refused */
  aliases?: Record<string, string>;
  /** arguments this tool requires though the facade field is optional (recall_topic's entity) */
  required?: string[];
  /** what the client is told of an argument, by argument name: a description, or the field re-described (nested fields) */
  describe?: Record<string, string | ((field: z.ZodType) => z.ZodType)>;
  /** arguments that are not a facade field as such ({} when none) … */
  extra: E;
  /** … and the field each folds into, BESIDE_INPUT for the id the method takes beside its input, or TOOL_ONLY */
  into: { [K in keyof E]: (keyof Shape<S> & string) | typeof BESIDE_INPUT | typeof TOOL_ONLY };
  /** the facade fields the extra arguments make (search_memory's layers and switches → options) */
  fold?: (extra: z.output<z.ZodObject<E>>) => Partial<Record<keyof Shape<S>, unknown>>;
  scope: Scope;
  call: (kioku: Kioku, input: z.output<S>, caller: Caller, extra: z.output<z.ZodObject<E>>, context: ToolContext) => Promise<Rendered>;
}

export function kiokuTool<S extends z.ZodObject, E extends z.ZodRawShape>(def: KiokuToolDef<S, E>): McpTool {
  const shape: Shape<S> = def.input.shape;
  // strict: an argument the tool does not take is refused by name, never dropped (issue 34)
  const extraSchema = z.strictObject(def.extra);
  const extraArgs = Object.keys(def.extra);
  const noExtra = extraArgs.length ? undefined : extraSchema.parse({}); // once, at definition: {} for a tool without extras
  const argument = (arg: string, field: string): z.ZodType => {
    const facadeField: z.ZodType = shape[field];
    const inner: unknown = def.required?.includes(arg) && facadeField instanceof z.ZodOptional ? facadeField.unwrap() : undefined;
    const schema = inner instanceof z.ZodType ? inner : facadeField;
    const told = def.describe?.[arg];
    const described = told === undefined ? schema : typeof told === 'string' ? schema.describe(told) : told(schema);
    // an argument with an alias may come under either name: neither is required as such (the facade still requires the field)
    return Object.values(def.aliases ?? {}).includes(arg) ? described.optional() : described;
  };
  const aliases = Object.entries(def.aliases ?? {}).map(([alias, arg]) => {
    const field = def.fields[arg];
    if (field === undefined) throw new Error(`${def.name}: alias ${alias} of ${arg}, which is not an argument`);
    return [alias, field, argument(arg, field).describe(`the same as ${arg} (an alias)`)] as const;
  });
  const fields: Record<string, string> = { ...def.fields, ...Object.fromEntries(aliases.map(([alias, field]) => [alias, field])) };
  const args = z.strictObject({
    ...Object.fromEntries(Object.entries(def.fields).map(([arg, field]) => [arg, argument(arg, field)])),
    ...Object.fromEntries(aliases.map(([alias, , schema]) => [alias, schema])),
    ...extraSchema.shape,
  });
  const known = Object.keys(args.shape);
  return {
    name: def.name,
    description: def.description,
    arguments: args,
    facade: { schema: def.input, into: { ...fields, ...def.into } },
    run: (raw, kioku, context) =>
      answer(async () => {
        refuseUnknown(raw, known, def.name);
        refuseTwice(raw, fields, def.name);
        // the tool's own arguments, when it has any (never the facade's fields: those are parsed once, below)
        const extra = noExtra ?? parseInput(extraSchema, pick(raw, extraArgs), def.name);
        const missing = def.required?.find((arg) => raw[arg] === undefined);
        if (missing) throw new KiokuError('KIOKU_INPUT_INVALID', `${def.name}: ${missing}: required`, { details: { field: missing } });
        const body: Record<string, unknown> = def.fold ? { ...def.fold(extra) } : {};
        for (const [arg, field] of Object.entries(fields)) if (raw[arg] !== undefined) body[field] = raw[arg];
        if (context.namespace !== undefined) body['namespace'] = context.namespace; // sent on: a remote service resolves it against the token
        const input = inArgumentTerms(() => parseInput(def.input, body, def.name), def.name, fields, raw);
        const caller = resolveCaller(ANONYMOUS, context.namespace, def.scope, 'mcp');
        return def.call(await kioku(), input, caller, extra, context);
      }),
  };
}

/**
 * A read tool without arguments: one facade method answering for the call's namespace (outbox,
 * stats, list_spaces, list_members), under memory:read. Its arguments are closed like every
 * tool's: anything given is refused by name.
 */
export function namespaceReadTool(def: {
  name: string;
  description: string;
  call: (kioku: Kioku, input: z.output<typeof namespaceOnly>, caller: Caller) => Promise<Rendered>;
}): McpTool {
  return kiokuTool({ ...def, input: namespaceOnly, fields: {}, extra: {}, into: {}, scope: 'memory:read', call: (k, input, caller) => def.call(k, input, caller) });
}

/**
 * A tool whose facade method has no input schema (a lookup by key, an asset's ticket) or that needs
 * no Kioku at all (the single-user team tools): its own arguments, parsed once here. `kioku` is
 * resolved only when the tool asks for it, so a fixed answer never waits for a service.
 */
export function plainTool<S extends z.ZodRawShape>(def: {
  name: string;
  description: string;
  input: S;
  call: (kioku: () => Promise<Kioku>, args: z.output<z.ZodObject<S>>, context: ToolContext) => Promise<Rendered | ToolAnswer>;
}): McpTool {
  const args = z.strictObject(def.input);
  return {
    name: def.name,
    description: def.description,
    arguments: args,
    run: (raw, kioku, context) => answer(async () => def.call(kioku, parseInput(args, raw, def.name), context)),
  };
}

/**
 * A refusal names what the agent sent: a facade field the tool calls by another name (recall's
 * `message` is the facade's `query`) is renamed back to the tool's argument in the message and details.
 */
function inArgumentTerms<T>(parse: () => T, tool: string, fields: Record<string, string>, raw: Record<string, unknown>): T {
  try {
    return parse();
  } catch (err) {
    const field = isKiokuError(err) && err.code === 'KIOKU_INPUT_INVALID' ? err.details?.['field'] : undefined;
    if (!isKiokuError(err) || typeof field !== 'string') throw err;
    const [head = '', ...rest] = field.split('.');
    // the argument the caller gave for that field (search_memory's query or its alias sentence)
    const arg = Object.entries(fields).find(([a, f]) => f === head && a !== f && raw[a] !== undefined)?.[0];
    if (arg === undefined) throw err;
    const named = [arg, ...rest].join('.');
    const message = err.message.replace(`${tool}: ${field}`, `${tool}: ${named}`);
    throw new KiokuError(err.code, message, { details: { ...err.details, field: named }, cause: err });
  }
}

/** An argument the tool does not take is an error naming it (and what the tool takes), never dropped. */
function refuseUnknown(raw: Record<string, unknown>, known: readonly string[], tool: string): void {
  const unknown = Object.keys(raw).find((k) => !known.includes(k));
  if (unknown === undefined) return;
  throw new KiokuError('KIOKU_INPUT_INVALID', `${tool}: ${unknown.slice(0, 80)}: unknown argument (${tool} takes ${known.join(', ') || 'no arguments'})`, {
    details: { field: unknown.slice(0, 200) },
  });
}

/** Two arguments for one facade field (an alias beside the name: search_memory's sentence and query) would leave one unread: refused. */
function refuseTwice(raw: Record<string, unknown>, fields: Record<string, string>, tool: string): void {
  const given = Object.entries(fields).filter(([arg]) => raw[arg] !== undefined);
  for (const [arg, field] of given) {
    const other = given.find(([a, f]) => f === field && a !== arg);
    if (other)
      throw new KiokuError('KIOKU_INPUT_INVALID', `${tool}: ${other[0]}: give ${arg} or ${other[0]}, not both (one is the other's alias)`, { details: { field: other[0] } });
  }
}

function pick(raw: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => raw[k] !== undefined).map((k) => [k, raw[k]]));
}

async function answer(fn: () => Promise<Rendered | ToolAnswer>): Promise<ToolAnswer> {
  try {
    const r = await fn();
    if ('content' in r) return r;
    return { content: [{ type: 'text', text: r.text }], structuredContent: { ...r.data } };
  } catch (err) {
    return errorAnswer(isKiokuError(err) ? err.code : 'KIOKU_INTERNAL', err instanceof Error ? err.message : String(err));
  }
}

/** An error the agent can act on: its code and message, in the text and in the structured content. */
export function errorAnswer(code: string, message: string, text = `${code}: ${message}`): ToolAnswer {
  return { content: [{ type: 'text', text }], structuredContent: { error: { code, message } }, isError: true };
}
