// The actions API (PostHog's /api/projects/:id/actions/): an action is a named set of steps,
// an event matches it when it matches any step; hog function filters that name an action
// compile its steps, and compile them again when the action changes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execute } from '../../src/hog/host.js';
import type { Bytecode } from '../../src/hog/index.js';
import { serveSuite, type ApiCall } from '../helpers/api.js';
import { NO_CONSUMERS, type TestServer } from '../helpers/server.js';

const s = suite('actions API');
let t: TestServer;
let api: ApiCall;
serveSuite(s, (server, client) => { t = server; api = client; }, { consumers: NO_CONSUMERS });

const actions = () => `/api/projects/${t.projectId}/actions/`;
const functions = () => `/api/environments/${t.projectId}/hog_functions/`;

const pricing = { event: '$pageview', url: '/pricing' };

// What a filter's bytecode decides for an event (the VM, as the destinations consumer runs it).
async function matches(bytecode: Bytecode, event: string, url: string, email = 'someone@example.com'): Promise<boolean> {
  const report = await execute(bytecode, {
    event, properties: { $current_url: url }, person: { id: 'p', properties: { email } }, elements_chain: '',
  }, { timeoutMs: 1000 });
  if (report.error) throw new Error(report.error.message);
  return report.result === true;
}

s('an action is created, read, listed and renamed with PostHog\'s fields', async () => {
  const made = await api('POST', actions(), t.personalKey, { name: 'Viewed pricing', description: 'price page', tags: ['web'], steps: [pricing] });
  assert.is(made.status, 201, JSON.stringify(made.body));
  const a = made.body;
  assert.ok(Number.isInteger(a.id));
  assert.equal(
    [a.name, a.description, a.tags, a.deleted, a.is_action, a.is_calculating, a.team_id, a.post_to_slack, a.bytecode_error],
    ['Viewed pricing', 'price page', ['web'], false, true, false, t.projectId, false, null],
  );
  // Unset conditions are null; url_matching defaults to contains, as PostHog's step does.
  assert.equal(a.steps, [{
    event: '$pageview', url: '/pricing', url_matching: 'contains', properties: null, selector: null, tag_name: null, text: null,
    text_matching: null, href: null, href_matching: null,
  }]);
  assert.is(a.created_by.email, 'admin@hedgerow.local');
  const read = await api('GET', `${actions()}${a.id}/`, t.personalKey);
  assert.equal(read.body, a);
  const listed = await api('GET', actions(), t.personalKey);
  assert.ok(listed.body.results.some((x: { id: number }) => x.id === a.id));
  assert.type(listed.body.count, 'number');
  const renamed = await api('PATCH', `${actions()}${a.id}/`, t.personalKey, { name: 'Pricing views' });
  assert.equal([renamed.status, renamed.body.name, renamed.body.steps], [200, 'Pricing views', a.steps]);
  // The environments path is the same resource.
  assert.is((await api('GET', `/api/environments/${t.projectId}/actions/${a.id}/`, t.personalKey)).body.name, 'Pricing views');
});

s('two live actions of one project cannot share a name; a deleted one frees it', async () => {
  const first = await api('POST', actions(), t.personalKey, { name: 'Signed up', steps: [{ event: 'signup' }] });
  const clash = await api('POST', actions(), t.personalKey, { name: 'Signed up', steps: [] });
  assert.equal([clash.status, clash.body], [400, {
    type: 'validation_error', code: 'unique', detail: `This project already has an action with this name, ID ${first.body.id}`, attr: 'name',
  }]);
  assert.is((await api('DELETE', `${actions()}${first.body.id}/`, t.personalKey)).status, 405);
  assert.is((await api('PATCH', `${actions()}${first.body.id}/`, t.personalKey, { deleted: true })).status, 200);
  assert.is((await api('GET', `${actions()}${first.body.id}/`, t.personalKey)).status, 404);
  const listed = await api('GET', actions(), t.personalKey);
  assert.not.ok(listed.body.results.some((x: { id: number }) => x.id === first.body.id));
  const second = await api('POST', actions(), t.personalKey, { name: 'Signed up', steps: [] });
  assert.is(second.status, 201);
  // Bringing the first back would make two of that name.
  const undelete = await api('PATCH', `${actions()}${first.body.id}/`, t.personalKey, { deleted: false });
  assert.equal([undelete.status, undelete.body.attr, undelete.body.code], [400, 'name', 'unique']);
});

s('bad steps are refused naming the field', async () => {
  const matching = await api('POST', actions(), t.personalKey, { name: 'm', steps: [{ url: '/x', url_matching: 'startswith' }] });
  assert.equal([matching.status, matching.body.attr, matching.body.code], [400, 'steps__0__url_matching', 'invalid_choice']);
  const notList = await api('POST', actions(), t.personalKey, { name: 'n', steps: { event: 'x' } });
  assert.equal([notList.status, notList.body.attr], [400, 'steps']);
  const hogql = await api('POST', actions(), t.personalKey, { name: 'h', steps: [{ event: 'x', properties: [{ type: 'hogql', key: '1 = 1' }] }] });
  assert.equal([hogql.status, hogql.body.attr], [400, 'steps__0__properties__0__type']);
  assert.match(hogql.body.detail, /not supported/);
});

s('a hog function filtered by an action matches what the action matches, and follows it when its steps change', async () => {
  const action = (await api('POST', actions(), t.personalKey, { name: 'Pricing (filters)', steps: [pricing] })).body;
  const made = await api('POST', functions(), t.personalKey, {
    template_id: 'template-webhook', enabled: true, inputs: { url: { value: 'https://example.com/' } },
    filters: { actions: [{ id: String(action.id), type: 'actions', name: action.name }] },
  });
  assert.is(made.status, 201, JSON.stringify(made.body));
  const before = made.body.filters.bytecode as Bytecode;
  assert.ok(Array.isArray(before), JSON.stringify(made.body.filters));
  assert.ok(await matches(before, '$pageview', 'https://shop.example/pricing'));
  assert.not.ok(await matches(before, '$pageview', 'https://shop.example/docs'));
  assert.not.ok(await matches(before, 'signup', 'https://shop.example/pricing'));

  const changed = await api('PATCH', `${actions()}${action.id}/`, t.personalKey, { steps: [{ event: '$pageview', url: '/docs' }] });
  assert.is(changed.status, 200);
  const after = (await api('GET', `${functions()}${made.body.id}/`, t.personalKey)).body.filters.bytecode as Bytecode;
  assert.ok(await matches(after, '$pageview', 'https://shop.example/docs'));
  assert.not.ok(await matches(after, '$pageview', 'https://shop.example/pricing'));

  // Deleted, the action no longer exists for the filters: PostHog's error, and nothing matches.
  await api('PATCH', `${actions()}${action.id}/`, t.personalKey, { deleted: true });
  const gone = (await api('GET', `${functions()}${made.body.id}/`, t.personalKey)).body.filters;
  assert.equal([gone.bytecode, gone.bytecode_error], [null, 'Action matching query does not exist.']);
});

s('filter_test_accounts applies the project\'s test account filters', async () => {
  const internal = [{ key: 'email', value: '@internal.example', operator: 'not_icontains', type: 'person' }];
  assert.is((await api('PATCH', `/api/projects/${t.projectId}/`, t.personalKey, { test_account_filters: internal })).status, 200);
  const made = await api('POST', functions(), t.personalKey, {
    template_id: 'template-webhook', enabled: true, inputs: { url: { value: 'https://example.com/' } },
    filters: { events: [{ id: '$pageview', type: 'events' }], filter_test_accounts: true },
  });
  assert.is(made.status, 201, JSON.stringify(made.body));
  const bytecode = made.body.filters.bytecode as Bytecode;
  assert.ok(await matches(bytecode, '$pageview', '/', 'customer@example.com'));
  assert.not.ok(await matches(bytecode, '$pageview', '/', 'dev@internal.example'));
  await api('PATCH', `/api/projects/${t.projectId}/`, t.personalKey, { test_account_filters: [] });
});

s.run();
