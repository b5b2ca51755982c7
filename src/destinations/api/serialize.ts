// A hog function and a template as the API shows them (SPEC §2.5; PostHog's full and
// minimal serializers). Secret inputs are never shown: each one that holds a value is
// {"secret": true}, and sent back so it keeps the stored value.
import { type User, userBasic } from '../../access/index.js';
import { templateById, type HogFunctionTemplate } from '../templates/index.js';
import type { StoredHogFunction } from '../types.js';

export interface Status {
  state: number;
  rating: number;
  tokens: number;
}

export function templateResponse(t: HogFunctionTemplate) {
  return {
    id: t.id, name: t.name, description: t.description, type: t.type, status: t.status, free: t.free, category: t.category,
    icon_url: t.icon_url, hog: t.code, code: t.code, code_language: 'hog', inputs_schema: t.inputs_schema,
    filters: t.filters, masking: t.masking, mapping_templates: t.mapping_templates, mappings: null, sub_templates: null,
  };
}

function shownInputs(fn: StoredHogFunction): Record<string, unknown> {
  const shown: Record<string, unknown> = { ...fn.inputs };
  for (const key of Object.keys(fn.secret_inputs)) shown[key] = { secret: true };
  return shown;
}

export interface Presentation {
  user(id: number): User | undefined;
  status(fn: StoredHogFunction): Status;
}

// The list's shape (PostHog's minimal serializer).
export function minimalResponse(fn: StoredHogFunction, p: Presentation) {
  const creator = fn.created_by === null ? undefined : p.user(fn.created_by);
  const template = fn.template_id ? templateById(fn.template_id) : undefined;
  return {
    id: fn.id, type: fn.type, name: fn.name, description: fn.description, created_at: fn.created_at,
    created_by: creator ? userBasic(creator) : null, updated_at: fn.updated_at, enabled: fn.enabled, hog: fn.hog,
    filters: fn.filters, icon_url: fn.icon_url, template: template ? templateResponse(template) : null, status: p.status(fn),
    execution_order: fn.execution_order,
  };
}

// The full shape: create, retrieve, update and the list with ?full=true.
export function fullResponse(fn: StoredHogFunction, p: Presentation) {
  const { filters: _f, icon_url: _i, template, status, execution_order, ...head } = minimalResponse(fn, p);
  return {
    ...head,
    deleted: fn.deleted,
    bytecode: fn.bytecode,
    transpiled: fn.transpiled,
    inputs_schema: fn.inputs_schema,
    inputs: shownInputs(fn),
    filters: fn.filters,
    masking: fn.masking,
    mappings: fn.mappings,
    icon_url: fn.icon_url,
    template,
    template_id: fn.template_id,
    status,
    execution_order,
    rate_limit_per_second: fn.rate_limit_per_second ?? null,
  };
}
