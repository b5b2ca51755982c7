// A hog function's create or update body checked and compiled as PostHog's
// HogFunctionSerializer does (posthog/api/hog_function.py, reference/hog.md §1): the
// effective values (type, template, inputs schema and inputs fall back to the stored
// function's or the template's), each field, then the whole (type change, code size and
// compile, mappings only for destinations). Pure but for the WASM parser, which is slow
// (tens to hundreds of milliseconds per program or template string), so the API runs it
// in a worker (../tasks.ts); errors are thrown as ApiError, the first one only, as
// PostHog's error handler reports them.
import { errors } from '../../errors.js';
import { booleanField, charField, integerField, listField } from '../../http/fields.js';
import { pythonType } from '../../http/body.js';
import {
  compileFilters, compileHashTemplate, compileProgram, compileTemplateInputs, DESTINATION_FUNCTIONS, SourceLimitError,
  type ActionStep, type CohortDefinition, type CompiledInput, type InputSchemaItem, type PropertyFilter,
} from '../../hog/index.js';
import { templateById } from '../templates/index.js';
import {
  HOG_FUNCTION_TYPES, type HogFunctionFields, type StoredFilters, type StoredHogFunction, type StoredMapping, type StoredMasking,
} from '../types.js';
import { inputsSchema } from './input-schema.js';
import { under } from '../../http/nested-errors.js';

export interface ValidationContext {
  projectId: number;
  timeZone: string;
  // Relative dates in filters resolve against it (epoch ms), as PostHog resolves them at save.
  now: number;
  siteUrl: string;
  // What filters may name, as data (this runs in a worker): the project's live actions' steps
  // by id, its test account filters, and the cohorts those filters name.
  actions: Record<number, ActionStep[]>;
  testAccountFilters: PropertyFilter[];
  cohorts: Record<number, CohortDefinition>;
}

export const MAX_HOG_BYTES = 100 * 1024;
// Functions whose code is TypeScript PostHog transpiles (posthog/cdp/site_functions.py):
// hedgerow has no transpiler, so it refuses them rather than store code it cannot run.
const TRANSPILED_TYPES = new Set(['site_destination', 'site_app']);
// Functions over what hedgerow does not have: PostHog's logs product's records and its data
// warehouse's sources. Refused, rather than stored and never run.
const NO_SOURCE_TYPES: Record<string, string> = {
  transformation_log: 'Functions of type transformation_log run on log records, which this server does not ingest.',
  warehouse_source_webhook: 'Functions of type warehouse_source_webhook feed a data warehouse, which this server does not have.',
};
const MAPPING_TYPES = new Set(['destination', 'site_destination']);
const EXECUTION_ORDER_TYPES = new Set(['transformation']);
// PostHog's MAX_ENABLED_FUNCTIONS_PER_TEAM_BY_TYPE: types that run during ingestion.
const ENABLED_CAPS: Record<string, number> = { transformation: 20 };

type Body = Record<string, unknown>;

// Compiles with the parser's bounds told as a 400 naming the field and the limit.
function bounded<T>(attr: string, what: string, compile: () => T): T {
  try {
    return compile();
  } catch (err) {
    if (!(err instanceof SourceLimitError)) throw err;
    throw err.kind === 'depth' ? errors.sourceTooDeep(what, err.value, err.max, attr) : errors.sourceTooLarge(what, err.value, err.max, attr);
  }
}

const isDict = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);

// A create that names no type takes its template's (a transformation's template makes one).
function functionType(body: Body, existing: StoredHogFunction | null, templateType: string | undefined): string {
  const given = body.type;
  if (given !== undefined && given !== null && given !== '') {
    if (!(HOG_FUNCTION_TYPES as readonly unknown[]).includes(given)) throw errors.invalidChoice(given, 'type');
    if (TRANSPILED_TYPES.has(given as string)) {
      throw errors.validation(`Functions of type ${String(given)} run TypeScript in the browser, which this server cannot compile.`, 'type');
    }
    if (NO_SOURCE_TYPES[given as string] !== undefined) throw errors.validation(NO_SOURCE_TYPES[given as string], 'type');
    if (existing && existing.type !== given) throw errors.validation('Cannot modify the type of an existing function', 'type');
    return given as string;
  }
  return existing?.type ?? templateType ?? 'destination';
}

/** Compiled inputs of `schema`; errors under `attr` (inputs, mappings__0__inputs). */
function compiledInputs(
  schema: InputSchemaItem[], raw: unknown, type: string, attr: string, storedSecrets?: Record<string, unknown>,
): Record<string, CompiledInput> {
  if (raw !== undefined && raw !== null && !isDict(raw)) {
    throw errors.validation(`Expected a dictionary of items but got type "${pythonType(raw)}".`, attr, 'not_a_dict');
  }
  const result = bounded(attr, 'An input template', () => compileTemplateInputs(schema, (raw ?? {}) as Body, { functionType: type, storedSecrets }));
  if (!result.ok) {
    const first = result.errors[0];
    throw errors.validation(first.message, first.key === null ? attr : `${attr}__${first.key}`);
  }
  return result.inputs;
}

function compiledFilters(raw: unknown, ctx: ValidationContext, attr: string, dropEntities: boolean): StoredFilters {
  const given: Body = raw === undefined || raw === null ? {} : (() => {
    if (!isDict(raw)) throw errors.validation(`Expected a dictionary of items but got type "${pythonType(raw)}".`, attr, 'not_a_dict');
    return raw;
  })();
  const { bytecode: _b, bytecode_error: _e, transpiled: _t, ...filters } = given;
  for (const name of ['events', 'actions', 'properties']) under(attr, () => listField(filters, name));
  if (dropEntities) {
    delete filters.events;
    delete filters.actions;
  }
  const compiled = bounded(attr, 'A HogQL filter', () => compileFilters(filters, {
    now: ctx.now, timeZone: ctx.timeZone, siteUrl: ctx.siteUrl, projectId: ctx.projectId, testAccountFilters: ctx.testAccountFilters,
    action: (id) => (Object.hasOwn(ctx.actions, id) ? { steps: ctx.actions[id] } : undefined),
    cohort: (id) => (Object.hasOwn(ctx.cohorts, id) ? ctx.cohorts[id] : undefined),
  }));
  return { source: 'events', ...filters, ...compiled };
}

function masking(body: Body): StoredMasking | null | undefined {
  const raw = body.masking;
  if (raw === undefined) return undefined;
  if (raw === null) return null;
  return under('masking', () => {
    if (!isDict(raw)) throw errors.validation(`Invalid data. Expected a dictionary, but got ${pythonType(raw)}.`, null, 'invalid');
    if (raw.ttl === undefined) throw errors.required('ttl');
    const ttl = integerField(raw, 'ttl', { min: 60, max: 86400 })!;
    const threshold = integerField(raw, 'threshold', { allowNull: true }) ?? null;
    if (raw.hash === undefined) throw errors.required('hash');
    const hash = charField(raw, 'hash')!;
    const compiled = bounded('hash', 'The masking hash', () => compileHashTemplate(hash));
    if (!compiled.ok) throw errors.validation(`Invalid template: ${compiled.error.message}`, 'hash');
    return { ttl, threshold, hash, bytecode: compiled.bytecode };
  });
}

function mappings(body: Body, type: string, ctx: ValidationContext): StoredMapping[] | null | undefined {
  const raw = body.mappings;
  if (raw === undefined) return undefined;
  if (raw === null) return null;
  const list = listField(body, 'mappings')!;
  if (!MAPPING_TYPES.has(type)) throw errors.validation('Mappings are only allowed for destinations.', 'mappings');
  return list.map((m, i) => under(`mappings__${i}`, () => {
    if (!isDict(m)) throw errors.validation(`Invalid data. Expected a dictionary, but got ${pythonType(m)}.`, null, 'invalid');
    const schema = inputsSchema(m, 'inputs_schema') ?? [];
    const mapping: StoredMapping = {
      ...m,
      inputs_schema: schema,
      inputs: compiledInputs(schema, m.inputs, type, 'inputs'),
      filters: compiledFilters(m.filters, ctx, 'filters', false),
    };
    const name = charField(m, 'name', { allowBlank: true, allowNull: true });
    if (name !== undefined && name !== null) mapping.name = name;
    return mapping;
  }));
}

function hogSource(body: Body, templateCode: string | null, existing: StoredHogFunction | null): string {
  const given = charField(body, 'hog', { allowBlank: true, allowNull: true });
  if (given) return given;
  if (templateCode !== null && !existing) return templateCode;
  if (existing && given === undefined) return existing.hog;
  throw errors.validation('Required.', 'hog');
}

function compiledHog(hog: string, existing: StoredHogFunction | null): unknown[] {
  if (Buffer.byteLength(hog, 'utf8') > MAX_HOG_BYTES) {
    throw errors.validation('HOG code exceeds maximum size of 100KB. Please simplify your code or contact support if you need this ' +
      'limit increased.', 'hog');
  }
  if (existing && existing.hog === hog && existing.bytecode) return existing.bytecode;
  const compiled = bounded('hog', 'The Hog code', () => compileProgram(hog, { functions: DESTINATION_FUNCTIONS }));
  if (!compiled.ok) throw errors.validation('Hog code has errors.', 'hog');
  return compiled.bytecode;
}

/**
 * The fields to store for a create (`existing` null) or an update. Throws ApiError.
 * `maxExecutionOrder`: the highest execution_order among the project's other functions
 * of the same type (PostHog appends new and re-enabled transformations after them).
 * `enabledOfType`: how many of them are enabled and not deleted (capped for some types).
 */
export function validateHogFunction(
  body: Body, existing: StoredHogFunction | null, ctx: ValidationContext, maxExecutionOrder = 0, enabledOfType = 0,
): HogFunctionFields {
  const templateId = existing ? existing.template_id : (charField(body, 'template_id', { allowBlank: true, allowNull: true }) || null);
  const template = templateId ? templateById(templateId) : null;
  if (templateId && !template) throw errors.validation(`No template found for id '${templateId}'`, 'template_id');
  const type = functionType(body, existing, template?.type);
  const fromTemplate = template && !existing ? template : null;

  // A create from a template takes what the body leaves empty from the template.
  const text = (given: string | null | undefined, fromTemplateValue: string | undefined, stored: string | undefined) =>
    fromTemplate ? given || fromTemplateValue || '' : given !== undefined ? given ?? '' : stored ?? '';
  const name = text(charField(body, 'name', { max: 400, allowBlank: true, allowNull: true }), fromTemplate?.name, existing?.name);
  const description = text(charField(body, 'description', { allowBlank: true, allowNull: true }), fromTemplate?.description, existing?.description);
  const enabled = booleanField(body, 'enabled') ?? existing?.enabled ?? false;
  const deleted = booleanField(body, 'deleted') ?? existing?.deleted ?? false;

  const givenSchema = inputsSchema(body, 'inputs_schema');
  const schema = givenSchema?.length ? givenSchema : givenSchema ?? (fromTemplate ? fromTemplate.inputs_schema : existing?.inputs_schema ?? []);
  let inputs: Record<string, CompiledInput>;
  let secretInputs: Record<string, CompiledInput>;
  if (existing && body.inputs === undefined && givenSchema === undefined) {
    inputs = existing.inputs;
    secretInputs = existing.secret_inputs;
  } else {
    const raw = body.inputs !== undefined ? body.inputs : existing ? { ...existing.inputs } : {};
    const all = compiledInputs(schema, raw, type, 'inputs', existing?.secret_inputs);
    const secretKeys = new Set(schema.filter((s) => s.secret).map((s) => s.key));
    inputs = Object.fromEntries(Object.entries(all).filter(([k]) => !secretKeys.has(k)));
    secretInputs = Object.fromEntries(Object.entries(all).filter(([k]) => secretKeys.has(k)));
  }

  // A function that starts running (created or updated enabled, undeleted, re-enabled)
  // counts against its type's cap; one that already runs never does.
  const cap = ENABLED_CAPS[type];
  const wasRunning = existing !== null && existing.enabled && !existing.deleted;
  if (cap !== undefined && enabled && !deleted && !wasRunning && enabledOfType >= cap) {
    throw errors.validation(
      `Maximum of ${cap} enabled ${type.replace(/_/g, ' ')} functions allowed per team. Please contact support if you need this limit increased, or disable some existing ones.`,
      'type',
    );
  }

  const givenMappings = mappings(body, type, ctx);
  const finalMappings = givenMappings === undefined ? existing?.mappings ?? null : givenMappings;
  const filters = compiledFilters(body.filters !== undefined ? body.filters : existing?.filters, ctx, 'filters', !!finalMappings?.length);
  if (filters.bytecode_error !== undefined && enabled) {
    throw errors.validation(`Invalid filter configuration: ${filters.bytecode_error}`, 'filters');
  }
  const givenMasking = masking(body);
  const iconUrl = charField(body, 'icon_url', { allowBlank: true, allowNull: true });
  let executionOrder = integerField(body, 'execution_order', { allowNull: true });
  if (executionOrder === undefined) {
    executionOrder = existing?.execution_order ?? null;
    const revived = existing && ((existing.deleted && !deleted) || (!existing.enabled && enabled));
    if (EXECUTION_ORDER_TYPES.has(type) && (!existing || revived)) executionOrder = maxExecutionOrder + 1;
  }
  const hog = hogSource(body, fromTemplate?.code ?? null, existing);
  const rate = rateLimit(body);

  return {
    type, name, description, enabled, deleted, hog,
    bytecode: compiledHog(hog, existing),
    transpiled: null,
    inputs_schema: schema,
    inputs,
    secret_inputs: secretInputs,
    filters,
    masking: givenMasking === undefined ? existing?.masking ?? null : givenMasking,
    mappings: finalMappings,
    icon_url: text(iconUrl, fromTemplate?.icon_url, existing?.icon_url ?? undefined) || null,
    template_id: templateId,
    execution_order: executionOrder,
    rate_limit_per_second: rate === undefined ? existing?.rate_limit_per_second ?? null : rate,
  };
}

// Beyond PostHog: fetches started per second, a positive number up to 10,000, or null.
function rateLimit(body: Body): number | null | undefined {
  const v = body.rate_limit_per_second;
  if (v === undefined || v === null) return v;
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  if (!Number.isFinite(n)) throw errors.validation('A valid number is required.', 'rate_limit_per_second', 'invalid');
  if (n <= 0 || n > 10_000) throw errors.validation('Ensure this value is greater than 0 and at most 10000.', 'rate_limit_per_second', 'invalid');
  return n;
}

// A stored function's filters (and its mappings') compiled again against what they name now,
// as PostHog's model save does when an action they name changes: a filter that no longer
// compiles keeps its error in bytecode_error (and matches nothing); nothing is refused, since
// the function was valid when it was saved.
export function recompiledFilters(fn: StoredHogFunction, ctx: ValidationContext): Pick<StoredHogFunction, 'filters' | 'mappings'> {
  const again = (f: StoredFilters | null) => (f === null ? null : compiledFilters(f, ctx, 'filters', false));
  return { filters: again(fn.filters), mappings: fn.mappings?.map((m) => ({ ...m, filters: again(m.filters) })) ?? null };
}
