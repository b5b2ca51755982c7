// Creating and changing an action from a request body, as PostHog's action serializer reads
// it: its fields, its steps (a list given replaces the steps; absent leaves them), soft
// delete and undelete, and one live action per name in a project. The steps are compiled
// as a hog function's filters would compile them, so an action that cannot match says why
// (bytecode_error) when it is saved, not when a function names it.
import type { ProjectContext } from '../access/index.js';
import { errors } from '../errors.js';
import { isObject } from '../json.js';
import { booleanField, charField, choiceField, listField } from '../http/fields.js';
import { under } from '../http/nested-errors.js';
import { pythonType } from '../http/body.js';
import { compileFilters } from '../hog/index.js';
import type { StateWrites } from '../state/index.js';
import { insertActionCommand, saveActionCommand } from './commands.js';
import { MATCHINGS, projectActions, type ActionRecord, type ActionStepRecord } from './records.js';
import type { ActionsTables } from './tables.js';

type Body = Record<string, unknown>;

const NAME_MAX = 400;
const SLACK_FORMAT_MAX = 1200;
const STEP_TEXTS = ['event', 'selector', 'tag_name', 'text', 'href', 'url'] as const;

function untrimmed(body: Body, name: string): string | null | undefined {
  const v = body[name];
  if (v === undefined || v === null) return v as null | undefined;
  if (typeof v !== 'string' && typeof v !== 'number') throw errors.notAString(name);
  return String(v);
}

function parseStep(raw: unknown): ActionStepRecord {
  if (!isObject(raw)) throw errors.notADictionary(pythonType(raw));
  const text = Object.fromEntries(STEP_TEXTS.map((f) => [f, untrimmed(raw, f) ?? null])) as Record<(typeof STEP_TEXTS)[number], string | null>;
  const properties = raw.properties === null ? null : listField(raw, 'properties') ?? null;
  properties?.forEach((p, i) => under(`properties__${i}`, () => {
    if (!isObject(p)) throw errors.notADictionary(pythonType(p));
    if (p.type === 'hogql') {
      throw errors.validation('HogQL property filters in action steps are not supported by hedgerow; use event or person property filters.', 'type');
    }
  }));
  return {
    ...text,
    properties: properties as Record<string, unknown>[] | null,
    text_matching: choiceField(raw, 'text_matching', MATCHINGS, true) ?? null,
    href_matching: choiceField(raw, 'href_matching', MATCHINGS, true) ?? null,
    url_matching: raw.url_matching === undefined ? 'contains' : choiceField(raw, 'url_matching', MATCHINGS, true) ?? null,
  };
}

function parse(body: Body) {
  const name = charField(body, 'name', { max: NAME_MAX, allowNull: true, allowBlank: true });
  const description = charField(body, 'description', { allowBlank: true });
  const tags = listField(body, 'tags');
  if (tags !== undefined && !tags.every((t) => typeof t === 'string')) throw errors.validation('Not a valid string.', 'tags', 'invalid');
  const steps = listField(body, 'steps')?.map((s, i) => under(`steps__${i}`, () => parseStep(s)));
  const pinned = body.pinned_at;
  if (pinned !== undefined && pinned !== null && (typeof pinned !== 'string' || Number.isNaN(Date.parse(pinned)))) throw errors.dateTimeFormat('pinned_at');
  return {
    name, description, tags: tags as string[] | undefined, steps,
    post_to_slack: booleanField(body, 'post_to_slack'),
    slack_message_format: charField(body, 'slack_message_format', { max: SLACK_FORMAT_MAX, allowBlank: true }),
    deleted: booleanField(body, 'deleted'),
    pinned_at: pinned === undefined ? undefined : pinned === null ? null : new Date(pinned as string).toISOString(),
  };
}

// PostHog's uniqueness rule: one live action of a name per project.
function checkName(store: ActionsTables, projectId: number, name: string | null | undefined, self: number | null): void {
  if (!name) return;
  const clash = projectActions(store, projectId).find((a) => !a.deleted && a.id !== self && a.name === name);
  if (clash) throw errors.validation(`This project already has an action with this name, ID ${clash.id}`, 'name', 'unique');
}

function bytecodeError(steps: ActionStepRecord[], now: Date): string | null {
  const compiled = compileFilters({ actions: [{ id: 1, type: 'actions' }] }, { now: now.getTime(), action: () => ({ steps }) });
  return 'bytecode_error' in compiled ? compiled.bytecode_error : null;
}

type Fields = ReturnType<typeof parse>;
const defined = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

export async function createAction(store: ActionsTables, writes: StateWrites, body: Body, ctx: ProjectContext, now: Date): Promise<ActionRecord> {
  const f: Fields = parse(body);
  checkName(store, ctx.project.id, f.name, null);
  const steps = f.steps ?? [];
  return writes.submit(insertActionCommand, {
    project_id: ctx.project.id, name: f.name ?? null, description: f.description ?? '', tags: f.tags ?? [],
    post_to_slack: f.post_to_slack ?? false, slack_message_format: f.slack_message_format ?? '', steps,
    created_at: now.toISOString(), created_by: ctx.user.id, deleted: f.deleted ?? false, pinned_at: f.pinned_at ?? null,
    bytecode_error: bytecodeError(steps, now),
  });
}

export async function updateAction(store: ActionsTables, writes: StateWrites, action: ActionRecord, body: Body, ctx: ProjectContext, now: Date): Promise<ActionRecord> {
  const f: Fields = parse(body);
  const next: ActionRecord = { ...action, ...defined(f) } as ActionRecord;
  // Undeleting (or renaming) must not make two live actions of one name.
  if (!next.deleted) checkName(store, ctx.project.id, next.name, action.id);
  if (f.steps !== undefined) next.bytecode_error = bytecodeError(next.steps, now);
  return writes.submit(saveActionCommand, next);
}
