// The hog functions API as PostHog answers it (SPEC §2.5, §3, §7; reference/hog.md §1): the
// object create fills (bytecode, compiled inputs, filters and masking bytecode, status),
// create from a template, every validation rule and message, secrets never shown and kept,
// the list's filters and order, soft delete and undelete, DELETE 405, rearrange, icons,
// templates, scopes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { serveSuite, type ApiCall } from '../helpers/api.js';
import { NO_CONSUMERS, type TestServer } from '../helpers/server.js';

const s = suite('hog functions API');
let t: TestServer;
let api: ApiCall;
// Management API only: no log consumers.
serveSuite(s, (server, call) => { t = server; api = call; }, { consumers: NO_CONSUMERS });
const base = () => `/api/environments/${t.projectId}/hog_functions/`;
const post = (body: unknown) => api('POST', base(), t.personalKey, body);
const invalid = (detail: string, attr: string | null, code = 'invalid_input') => ({ type: 'validation_error', code, detail, attr });

s('create without a template answers 201 with the object PostHog fills', async () => {
  const res = await post({ type: 'destination', name: 'Fetch URL', description: 'Test description', hog: 'fetch(inputs.url);', inputs: {} });
  assert.is(res.status, 201);
  const b = res.body;
  assert.match(b.id, /^[0-9a-f-]{36}$/);
  assert.equal({
    type: b.type, name: b.name, description: b.description, enabled: b.enabled, hog: b.hog, bytecode: b.bytecode,
    transpiled: b.transpiled, inputs_schema: b.inputs_schema, inputs: b.inputs, filters: b.filters, icon_url: b.icon_url,
    template: b.template, masking: b.masking, mappings: b.mappings, status: b.status, execution_order: b.execution_order,
    deleted: b.deleted, template_id: b.template_id,
  }, {
    type: 'destination', name: 'Fetch URL', description: 'Test description', enabled: false, hog: 'fetch(inputs.url);',
    bytecode: ['_H', 1, 32, 'url', 32, 'inputs', 1, 2, 2, 'fetch', 1, 35], transpiled: null, inputs_schema: [], inputs: {},
    filters: { source: 'events', bytecode: ['_H', 1, 29] }, icon_url: null, template: null, masking: null, mappings: null,
    status: { state: 0, rating: 0, tokens: 0 }, execution_order: null, deleted: false, template_id: null,
  });
  assert.is(b.created_by.email, 'admin@hedgerow.local');
  assert.ok(Date.parse(b.created_at) > 0 && b.updated_at === b.created_at);
});

s('create from a template takes its code, schema, name, description and icon; inputs are compiled in order', async () => {
  const res = await post({
    template_id: 'template-webhook',
    inputs: { url: { value: 'https://example.com/hook?v={event.properties.$lib_version}' }, body: { value: { event: '{event}' } } },
  });
  assert.is(res.status, 201);
  const b = res.body;
  assert.is(b.name, 'HTTP Webhook');
  assert.is(b.description, 'Sends a webhook templated by the incoming event data');
  assert.is(b.icon_url, '/static/services/webhook.svg');
  assert.match(b.hog, /let res := fetch\(inputs\.url, \{/);
  assert.equal(b.inputs_schema.map((i: { key: string }) => i.key), ['url', 'method', 'body', 'headers', 'debug']);
  assert.equal(b.inputs.url, {
    value: 'https://example.com/hook?v={event.properties.$lib_version}',
    bytecode: ['_H', 1, 32, 'https://example.com/hook?v=', 32, '$lib_version', 32, 'properties', 32, 'event', 1, 3, 2, 'concat', 2],
    order: 0,
  });
  assert.equal(b.inputs.body, { value: { event: '{event}' }, bytecode: { event: ['_H', 1, 32, 'event', 1, 1] }, order: 1 });
  assert.is(b.template.id, 'template-webhook');
  assert.is(b.template.code_language, 'hog');
  assert.is(b.template_id, 'template-webhook');
});

s('inputs that read other inputs come after them', async () => {
  const res = await post({
    hog: 'return inputs',
    inputs_schema: [{ key: 'a', type: 'string' }, { key: 'b', type: 'string' }],
    inputs: { a: { value: '{inputs.b}!' }, b: { value: 'x' } },
  });
  assert.is(res.status, 201);
  assert.is(res.body.inputs.a.order, 1);
  assert.is(res.body.inputs.b.order, 0);
  const cycle = await post({
    hog: 'return inputs', inputs_schema: [{ key: 'a', type: 'string' }, { key: 'b', type: 'string' }],
    inputs: { a: { value: '{inputs.b}' }, b: { value: '{inputs.a}' } },
  });
  assert.equal(cycle.body, invalid('Circular dependency detected in input_deps.', 'inputs'));
});

s('validation: template, hog, size, compile errors and type', async () => {
  assert.equal((await post({ template_id: 'nope' })).body, invalid("No template found for id 'nope'", 'template_id'));
  assert.equal((await post({ name: 'x' })).body, invalid('Required.', 'hog'));
  assert.equal((await post({ hog: 'let x := ' })).body, invalid('Hog code has errors.', 'hog'));
  const big = await post({ hog: `return '${'x'.repeat(100 * 1024)}'` });
  assert.is(big.status, 400);
  assert.equal(big.body, invalid('HOG code exceeds maximum size of 100KB. Please simplify your code or contact support if you need this limit increased.', 'hog'));
  assert.equal((await post({ type: 'invalid_type', hog: 'return 1' })).body, invalid('"invalid_type" is not a valid choice.', 'type', 'invalid_choice'));
  // PostHog's types that run what this server has not got: browser TypeScript, log records, a warehouse.
  assert.equal((await post({ type: 'site_destination', hog: 'return 1' })).body,
    invalid('Functions of type site_destination run TypeScript in the browser, which this server cannot compile.', 'type'));
  assert.equal((await post({ type: 'transformation_log', hog: 'return 1' })).body,
    invalid('Functions of type transformation_log run on log records, which this server does not ingest.', 'type'));
  assert.equal((await post({ type: 'warehouse_source_webhook', hog: 'return 1' })).body,
    invalid('Functions of type warehouse_source_webhook feed a data warehouse, which this server does not have.', 'type'));
  const created = await post({ type: 'destination', hog: 'return 1' });
  const patched = await api('PATCH', `${base()}${created.body.id}/`, t.personalKey, { type: 'transformation' });
  assert.is(patched.status, 400);
  assert.equal(patched.body, invalid('Cannot modify the type of an existing function', 'type'));
});

s('validation: inputs schema items and input values', async () => {
  const schema = [{ key: 'url', type: 'string', required: true }, { key: 'n', type: 'number' }, { key: 'd', type: 'dictionary' }];
  assert.equal((await post({ hog: 'return 1', inputs_schema: [{ key: 'a', type: 'wrong' }] })).body,
    invalid('"wrong" is not a valid choice.', 'inputs_schema__0__type', 'invalid_choice'));
  assert.equal((await post({ hog: 'return 1', inputs_schema: [{ type: 'string' }] })).body,
    invalid('This field is required.', 'inputs_schema__0__key', 'required'));
  assert.equal((await post({ hog: 'return 1', inputs_schema: schema, inputs: {} })).body, invalid('This field is required.', 'inputs__url'));
  assert.equal((await post({ hog: 'return 1', inputs_schema: schema, inputs: { url: { value: 5 } } })).body, invalid('Value must be a string.', 'inputs__url'));
  assert.equal((await post({ hog: 'return 1', inputs_schema: schema, inputs: { url: { value: 'u' }, n: { value: 'x' } } })).body,
    invalid('Value must be a number.', 'inputs__n'));
  assert.equal((await post({ hog: 'return 1', inputs_schema: schema, inputs: { url: { value: 'u' }, d: { value: [1] } } })).body,
    invalid('Value must be a dictionary.', 'inputs__d'));
  const badTemplate = await post({ hog: 'return 1', inputs_schema: schema, inputs: { url: { value: '{event.' } } });
  assert.is(badTemplate.body.attr, 'inputs__url');
  assert.match(badTemplate.body.detail, /^Invalid template: /);
  // Schema items come back with PostHog's defaults; keys outside the schema are dropped.
  const ok = await post({ hog: 'return 1', inputs_schema: schema, inputs: { url: { value: 'u' }, extra: { value: 1 } } });
  assert.equal(ok.body.inputs_schema[0], { type: 'string', key: 'url', required: true, secret: false, hidden: false });
  assert.equal(Object.keys(ok.body.inputs), ['url']);
});

s('validation: masking bounds and bytecode, mappings only for destinations', async () => {
  const masked = (masking: unknown) => post({ hog: 'return 1', masking });
  assert.equal((await masked({ ttl: 59, hash: '{person.id}' })).body,
    invalid('Ensure this value is greater than or equal to 60.', 'masking__ttl', 'min_value'));
  assert.equal((await masked({ ttl: 86401, hash: '{person.id}' })).body,
    invalid('Ensure this value is less than or equal to 86400.', 'masking__ttl', 'max_value'));
  assert.equal((await masked({ hash: '{person.id}' })).body, invalid('This field is required.', 'masking__ttl', 'required'));
  assert.equal((await masked({ ttl: 60 })).body, invalid('This field is required.', 'masking__hash', 'required'));
  const ok = await masked({ ttl: 60, threshold: null, hash: '{person.properties.email}' });
  assert.equal(ok.body.masking, {
    ttl: 60, threshold: null, hash: '{person.properties.email}', bytecode: ['_H', 1, 32, 'email', 32, 'properties', 32, 'person', 1, 3],
  });
  const transformation = await post({ type: 'transformation', hog: 'return event', mappings: [{ inputs_schema: [], inputs: {} }] });
  assert.equal(transformation.body, invalid('Mappings are only allowed for destinations.', 'mappings'));
  const mapped = await post({
    hog: 'return inputs', filters: { events: [{ id: '$pageview', type: 'events' }], properties: [] },
    mappings: [{ name: 'm', inputs_schema: [{ key: 'x', type: 'string', required: true }], inputs: {}, filters: {} }],
  });
  assert.equal(mapped.body, invalid('This field is required.', 'mappings__0__inputs__x'));
  const withMappings = await post({
    hog: 'return inputs', filters: { events: [{ id: '$pageview', type: 'events' }] },
    mappings: [{ inputs_schema: [{ key: 'x', type: 'string' }], inputs: { x: { value: '{event.event}' } }, filters: { events: [{ id: 'a', type: 'events' }] } }],
  });
  assert.is(withMappings.status, 201);
  // Top-level event filters give way to the mappings' own.
  assert.equal(withMappings.body.filters, { source: 'events', bytecode: ['_H', 1, 29] });
  assert.equal(withMappings.body.mappings[0].inputs.x, { value: '{event.event}', bytecode: ['_H', 1, 32, 'event', 32, 'event', 1, 2], order: 0 });
  assert.equal(withMappings.body.mappings[0].filters.bytecode, ['_H', 1, 32, 'a', 32, 'event', 1, 1, 11]);
});

s('enabled transformations are capped at 20 per project: a create, an enable and an undelete past it are refused, an update of a running one is not', async () => {
  const transformation = (extra: Record<string, unknown> = {}) => post({ type: 'transformation', hog: 'return event', enabled: true, ...extra });
  const made: string[] = [];
  for (let i = 0; i < 20; i++) {
    const res = await transformation();
    assert.is(res.status, 201);
    made.push(res.body.id);
  }
  const cap = invalid('Maximum of 20 enabled transformation functions allowed per team. Please contact support if you need this limit increased, or disable some existing ones.', 'type');
  assert.equal((await transformation()).body, cap);
  // Disabled ones are not capped; enabling one is.
  const off = await transformation({ enabled: false });
  assert.is(off.status, 201);
  assert.equal((await api('PATCH', `${base()}${off.body.id}/`, t.personalKey, { enabled: true })).body, cap);
  // One that runs already can be changed.
  assert.is((await api('PATCH', `${base()}${made[0]}/`, t.personalKey, { name: 'renamed' })).status, 200);
  // Deleting one makes room; undeleting it while full again is refused.
  assert.is((await api('PATCH', `${base()}${made[1]}/`, t.personalKey, { deleted: true })).status, 200);
  assert.is((await api('PATCH', `${base()}${off.body.id}/`, t.personalKey, { enabled: true })).status, 200);
  assert.equal((await api('PATCH', `${base()}${made[1]}/`, t.personalKey, { deleted: false })).body, cap);
  // Destinations have no cap; and the other transformations go, for the tests after this one.
  assert.is((await post({ hog: 'return 1', enabled: true })).status, 201);
  for (const id of [...made, off.body.id]) await api('PATCH', `${base()}${id}/`, t.personalKey, { deleted: true });
});

s('filters compile at save; an enabled function with filters PostHog cannot compile is refused', async () => {
  const filters = { events: [{ id: '$pageview', type: 'events' }] };
  const ok = await post({ hog: 'return 1', filters });
  assert.equal(ok.body.filters, { source: 'events', ...filters, bytecode: ['_H', 1, 32, '$pageview', 32, 'event', 1, 1, 11] });
  const unsupported = { properties: [{ key: 'a', value: 'x', operator: 'starts_with', type: 'event' }] };
  const disabled = await post({ hog: 'return 1', filters: unsupported });
  assert.is(disabled.status, 201);
  assert.is(disabled.body.filters.bytecode, null);
  assert.type(disabled.body.filters.bytecode_error, 'string');
  const enabled = await post({ hog: 'return 1', enabled: true, filters: unsupported });
  assert.equal(enabled.body, invalid(`Invalid filter configuration: ${disabled.body.filters.bytecode_error}`, 'filters'));
});

s('secret inputs are never shown, kept when sent back as {"secret": true}, and refused when nothing is stored', async () => {
  const created = await post({
    template_id: 'template-slack-webhook', inputs: { webhook_url: { value: 'https://hooks.slack.com/services/SECRET' }, text: { value: 'hi' } },
  });
  assert.equal(created.body.inputs.webhook_url, { secret: true });
  assert.not.match(JSON.stringify(created.body), /SECRET/);
  const one = `${base()}${created.body.id}/`;
  assert.not.match(JSON.stringify((await api('GET', one, t.personalKey)).body), /SECRET/);
  const list = await api('GET', `${base()}?full=true`, t.personalKey);
  assert.not.match(JSON.stringify(list.body), /SECRET/);
  const kept = await api('PATCH', one, t.personalKey, { inputs: { webhook_url: { secret: true }, text: { value: 'changed' } } });
  assert.is(kept.status, 200);
  assert.equal(kept.body.inputs.webhook_url, { secret: true });
  assert.is(kept.body.inputs.text.value, 'changed');
  // The stored value is what runs (the test run's mocked fetch shows it redacted).
  const run = await api('POST', `${one}invocations/`, t.personalKey, {
    configuration: { inputs: { webhook_url: { secret: true }, text: { value: 'x' } } },
    globals: { event: { uuid: 'u', event: 'e', distinct_id: 'd', properties: {}, timestamp: '2026-01-01T00:00:00Z' } },
  });
  assert.is(run.body.status, 'success');
  assert.ok(run.body.logs.some((l: { message: string }) => l.message.startsWith("fetch('***REDACTED***'")));
  const fresh = await post({ template_id: 'template-slack-webhook', inputs: { webhook_url: { secret: true } } });
  assert.equal(fresh.body, invalid('No value is saved for this secret input. Enter the value again.', 'inputs__webhook_url'));
});

s('retrieve, soft delete and undelete by PATCH; DELETE answers 405 with no body', async () => {
  const created = await post({ name: 'to delete', hog: 'return 1' });
  const one = `${base()}${created.body.id}/`;
  assert.is((await api('GET', one, t.personalKey)).body.name, 'to delete');
  const del = await api('DELETE', one, t.personalKey);
  assert.is(del.status, 405);
  assert.is(del.body, null);
  const deleted = await api('PATCH', one, t.personalKey, { deleted: true });
  assert.is(deleted.status, 200);
  assert.is(deleted.body.deleted, true);
  assert.is((await api('GET', one, t.personalKey)).status, 404);
  assert.is((await api('PATCH', one, t.personalKey, { name: 'x' })).status, 404);
  const ids = (await api('GET', base(), t.personalKey)).body.results.map((f: { id: string }) => f.id);
  assert.not.ok(ids.includes(created.body.id));
  const back = await api('PATCH', one, t.personalKey, { deleted: false });
  assert.is(back.status, 200);
  assert.is((await api('GET', one, t.personalKey)).status, 200);
  assert.is((await api('GET', `${base()}00000000-0000-0000-0000-000000000000/`, t.personalKey)).status, 404);
});

s('PATCH answers the full object and changes only what it is given', async () => {
  const created = await post({ name: 'p', hog: 'return 1', description: 'd' });
  const res = await api('PATCH', `${base()}${created.body.id}/`, t.personalKey, { enabled: true, name: 'renamed' });
  assert.is(res.status, 200);
  assert.is(res.body.name, 'renamed');
  assert.is(res.body.description, 'd');
  assert.is(res.body.enabled, true);
  assert.equal(res.body.bytecode, created.body.bytecode);
  assert.equal(res.body.status, { state: 1, rating: 1, tokens: 10000 });
  assert.ok(res.body.updated_at >= created.body.updated_at);
});

s('the list: filters, order (execution_order first, then newest update) and the minimal shape', async () => {
  const p = `/api/projects/${t.projectId}/hog_functions/`;
  const a = await post({ name: 'Alpha list', hog: 'return 1', enabled: true });
  const b = await post({ name: 'Beta list', description: 'has needle', hog: 'return 1' });
  const c = await post({ name: 'Gamma list', type: 'transformation', hog: 'return event' });
  const page = await api('GET', `${p}?search=list`, t.personalKey);
  assert.equal(page.body.results.map((f: { name: string }) => f.name), ['Gamma list', 'Beta list', 'Alpha list']);
  assert.equal(Object.keys(page.body.results[1]).sort(), [
    'created_at', 'created_by', 'description', 'enabled', 'execution_order', 'filters', 'hog', 'icon_url', 'id', 'name', 'status',
    'template', 'type', 'updated_at',
  ]);
  assert.is(page.body.results[0].execution_order, 1);
  const names = async (q: string) => (await api('GET', `${p}?search=list&${q}`, t.personalKey)).body.results.map((f: { id: string }) => f.id);
  assert.equal(await names('type=destination'), [b.body.id, a.body.id]);
  assert.equal(await names('type=transformation,destination&enabled=true'), [a.body.id]);
  assert.equal(await names('enabled=false'), [c.body.id, b.body.id]);
  assert.equal((await api('GET', `${p}?search=NEEDLE`, t.personalKey)).body.results.map((f: { id: string }) => f.id), [b.body.id]);
  assert.equal(await names(`created_by=${a.body.created_by.id}`), [c.body.id, b.body.id, a.body.id]);
  assert.equal(await names('created_by=999'), []);
  assert.equal(await names('filters={"source":"events"}'), [c.body.id, b.body.id, a.body.id]);
  assert.equal((await api('GET', `${p}?filters=[`, t.personalKey)).body, invalid('Invalid filters', 'filters'));
  // filter_groups: any of the list's objects contained in the stored filters.
  const d = await post({ name: 'Delta list', hog: 'return 1', filters: { events: [{ id: 'signed up', type: 'events' }] } });
  const e = await post({ name: 'Epsilon list', hog: 'return 1', filters: { events: [{ id: '$pageview', type: 'events' }] } });
  const groups = (list: unknown) => names(`filter_groups=${encodeURIComponent(JSON.stringify(list))}`);
  assert.equal(await groups([{ events: [{ id: 'signed up' }] }]), [d.body.id]);
  assert.equal(await groups([{ events: [{ id: 'signed up' }] }, { events: [{ id: '$pageview' }] }]), [e.body.id, d.body.id]);
  assert.equal(await groups([{ events: [{ id: 'other' }] }]), []);
  assert.equal((await groups([])).length, 5);
  for (const bad of ['[', '{"source":"events"}']) {
    assert.equal((await api('GET', `${p}?filter_groups=${encodeURIComponent(bad)}`, t.personalKey)).body, invalid('Invalid filter_groups', 'filter_groups'));
  }
  // With filters, PostHog ORs them all; empty ones are ignored.
  const signedUp = encodeURIComponent(JSON.stringify({ events: [{ id: 'signed up' }] }));
  const pageviews = encodeURIComponent(JSON.stringify([{ events: [{ id: '$pageview' }] }, {}]));
  assert.equal(await names(`filters=${signedUp}&filter_groups=${pageviews}`), [e.body.id, d.body.id]);
  assert.equal((await names('filters={}')).length, 5);
  for (const fn of [d, e]) await api('PATCH', `${p}${fn.body.id}/`, t.personalKey, { deleted: true });
  const full = await api('GET', `${p}?search=Alpha&full=true`, t.personalKey);
  assert.equal(full.body.results[0].bytecode, ['_H', 1, 33, 1, 38]);
  const limited = await api('GET', `${p}?search=list&limit=1`, t.personalKey);
  assert.is(limited.body.count, 3);
  assert.match(limited.body.next, /offset=1/);
});

s('rearrange sets execution order and answers the type\'s functions in order', async () => {
  const p = base();
  const x = await post({ name: 'rx', hog: 'return 1' });
  const y = await post({ name: 'ry', hog: 'return 1' });
  const t1 = await post({ name: 'rt', type: 'transformation', hog: 'return event' });
  assert.equal((await api('PATCH', `${p}rearrange/`, t.personalKey, {})).body, invalid('No orders provided', null));
  assert.equal((await api('PATCH', `${p}rearrange/`, t.personalKey, { orders: { nope: 1 } })).body, invalid('HogFunction with id nope does not exist', null));
  assert.equal((await api('PATCH', `${p}rearrange/`, t.personalKey, { orders: { [x.body.id]: 1, [t1.body.id]: 2 } })).body,
    invalid('Cannot rearrange functions of different types in one request', null));
  const res = await api('PATCH', `${p}rearrange/`, t.personalKey, { orders: { [x.body.id]: 2, [y.body.id]: 1 } });
  assert.is(res.status, 200);
  assert.ok(Array.isArray(res.body));
  const order = res.body.map((f: { id: string }) => f.id);
  assert.ok(order.indexOf(y.body.id) < order.indexOf(x.body.id));
  assert.ok(res.body.every((f: { type: string }) => f.type === 'destination'));
  assert.is((await api('GET', `${p}${x.body.id}/`, t.personalKey)).body.execution_order, 2);
});

s('icons: without a logo service, PostHog\'s answers', async () => {
  assert.equal((await api('GET', `${base()}icons/?query=slack`, t.personalKey)).body, []);
  assert.equal((await api('GET', `${base()}icons/`, t.personalKey)).body, []);
  assert.equal((await api('GET', `${base()}icon/`, t.personalKey)).body, invalid('id is required', 'id'));
  assert.is((await api('GET', `${base()}icon/?id=slack.com`, t.personalKey)).status, 404);
});

s('templates: the webhook and five more destinations, one with mapping templates', async () => {
  for (let i = 0; i < 3; i++) await post({ template_id: 'template-discord', inputs: { webhook_url: { value: 'https://discord.com/api/webhooks/x' } } });
  const list = await api('GET', `/api/environments/${t.projectId}/hog_function_templates/`, t.personalKey);
  assert.is(list.status, 200);
  const ids = list.body.results.map((x: { id: string }) => x.id);
  for (const id of ['template-webhook', 'template-slack-webhook', 'template-discord', 'template-microsoft-teams', 'template-json-post', 'template-segment-api']) {
    assert.ok(ids.includes(id), id);
  }
  // The most used first (Discord three times, the webhook and Slack once each in earlier tests), then by name.
  assert.equal(ids.slice(0, 3), ['template-discord', 'template-webhook', 'template-slack-webhook']);
  const one = await api('GET', `/api/projects/${t.projectId}/hog_function_templates/template-segment-api/`, t.personalKey);
  assert.is(one.body.mapping_templates.length, 3);
  assert.is(one.body.type, 'destination');
  assert.is((await api('GET', `/api/projects/${t.projectId}/hog_function_templates/nope/`, t.personalKey)).status, 404);
  // The one transformation template is listed for its type only.
  assert.not.ok(ids.includes('template-bot-detection'));
  const transformations = (await api('GET', `/api/projects/${t.projectId}/hog_function_templates/?type=transformation`, t.personalKey)).body.results;
  assert.equal(transformations.map((x: { id: string; type: string }) => [x.id, x.type]), [['template-bot-detection', 'transformation']]);
});

s('scopes: hog_function:read lists and reads, writing needs hog_function:write', async () => {
  const { key: reader } = await t.server.tenancy.createPersonalKey(1, ['hog_function:read'], null, 'reader');
  const { key: other } = await t.server.tenancy.createPersonalKey(1, ['feature_flag:read'], null, 'other');
  const created = await post({ hog: 'return 1' });
  const one = `${base()}${created.body.id}/`;
  for (const path of [base(), one, `${one}logs/`, `${one}metrics/`, `${one}metrics/totals/`, `/api/environments/${t.projectId}/hog_function_templates/`]) {
    assert.is((await api('GET', path, reader)).status, 200, path);
    assert.equal((await api('GET', path, other)).body.detail, "API key missing required scope 'hog_function:read'", path);
  }
  for (const [method, path] of [['POST', base()], ['PATCH', one], ['POST', `${one}invocations/`], ['PATCH', `${base()}rearrange/`]]) {
    const res = await api(method, path, reader, {});
    assert.is(res.status, 403, path);
    assert.is(res.body.detail, "API key missing required scope 'hog_function:write'");
  }
});

s.run();
