// An inputs_schema as PostHog's InputsSchemaItemSerializer checks it: a list of items, each
// with a key and a known type; the item's known fields kept (required, secret and hidden
// default to false), others dropped.
import { errors } from '../../errors.js';
import { pythonType } from '../../http/body.js';
import { booleanField, charField, listField } from '../../http/fields.js';
import type { InputSchemaItem } from '../../hog/index.js';
import { under } from '../../http/nested-errors.js';

export const INPUT_TYPES = [
  'string', 'number', 'boolean', 'dictionary', 'choice', 'json', 'integration', 'integration_field', 'integration_multi', 'email',
  'native_email', 'non_failure_status_codes', 'posthog_assignee', 'posthog_ticket_tags', 'customer_analytics_account_properties',
  'customer_analytics_account_relationships',
] as const;

const TEXT_FIELDS = ['label', 'description', 'integration', 'integration_key', 'requires_field', 'integration_field', 'requiredScopes'];

function item(raw: unknown): InputSchemaItem {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw errors.validation(`Invalid data. Expected a dictionary, but got ${pythonType(raw)}.`, null, 'invalid');
  }
  const body = raw as Record<string, unknown>;
  if (body.type === undefined) throw errors.required('type');
  if (!(INPUT_TYPES as readonly unknown[]).includes(body.type)) throw errors.invalidChoice(body.type, 'type');
  if (body.key === undefined) throw errors.required('key');
  const out: InputSchemaItem = { type: body.type as string, key: charField(body, 'key')! };
  for (const name of TEXT_FIELDS) {
    const text = charField(body, name, { allowBlank: true, allowNull: true });
    if (text !== undefined) out[name] = text;
  }
  const choices = listField(body, 'choices');
  if (choices !== undefined) {
    choices.forEach((c, i) => {
      if (typeof c !== 'object' || c === null || Array.isArray(c)) {
        throw errors.validation(`Expected a dictionary of items but got type "${pythonType(c)}".`, `choices__${i}`, 'not_a_dict');
      }
    });
    out.choices = choices;
  }
  out.required = booleanField(body, 'required') ?? false;
  if ('default' in body) out.default = body.default;
  out.secret = booleanField(body, 'secret') ?? false;
  out.hidden = booleanField(body, 'hidden') ?? false;
  const templating = body.templating;
  if (templating !== undefined && templating !== null) {
    if (typeof templating !== 'boolean' && templating !== 'hog' && templating !== 'liquid') throw errors.invalidChoice(templating, 'templating');
    out.templating = templating;
  }
  return out;
}

/** Throws with the attr below `inputs_schema` (or whichever field holds the schema). */
export function inputsSchema(body: Record<string, unknown>, name: string): InputSchemaItem[] | undefined {
  const list = listField(body, name);
  if (list === undefined) return undefined;
  return under(name, () => list.map((raw, i) => under(String(i), () => item(raw))));
}
