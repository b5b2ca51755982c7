// The template catalogue: every template made into a function with PostHog's template id
// and input names (as a PostHog user's function is), run on an event through the Hog
// workers' code (test/helpers/run-template.ts, in this process: no server), each request
// answered by a fake of that service's API that checks what the API requires. The
// assertions are the request's URL, method, headers and body shape; README's catalogue
// table is checked against the index.
import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TEMPLATES } from '../../src/destinations/templates/index.js';
import { runTemplate, templateEvent, type Respond, type SentRequest } from '../helpers/run-template.js';
import { repoRoot } from '../hog/helpers.js';

const s = suite('destination catalogue');

const person = {
  id: '0193a7a0-0000-7000-8000-0000000000aa',
  properties: { email: 'Ada@Example.com', name: 'Ada Lovelace', first_name: 'Ada', last_name: 'Lovelace', firstname: 'Ada', lastname: 'Lovelace', phone: '+441234', plan: 'pro' },
};
const pageview = templateEvent({ properties: { $current_url: 'https://example.com/pricing', $pathname: '/pricing', $ip: '203.0.113.9', $device_id: 'dev-1', plan: 'pro' } }, person);
const identify = templateEvent({ event: '$identify', properties: { $set: { email: 'ada@example.com' } } }, person);
const order = templateEvent({ event: 'Order Completed', properties: { revenue: 42.5, currency: 'EUR', order_id: 'o-1', products: [{ sku: 's-1', quantity: 2, price: 21.25 }] } }, person);
const exception = templateEvent({ event: '$exception', properties: { $exception_types: ['TypeError'], $exception_values: ['x is undefined'], $exception_issue_id: 'iss-1' } }, person);
const groupIdentify = templateEvent({ event: '$groupidentify', properties: {} }, person, { company: { index: 0, key: 'acme', properties: { name: 'Acme', domain: 'acme.test' } } });

const v = (value: unknown) => ({ value });
const inputsOf = (values: Record<string, unknown>) => Object.fromEntries(Object.entries(values).map(([k, x]) => [k, v(x)]));
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

// A fake that records requests and answers each by `answer` (200 {} unless told).
function fake(answer: (r: SentRequest) => { status: number; body: unknown } = () => ({ status: 200, body: {} })): { respond: Respond; seen: SentRequest[] } {
  const seen: SentRequest[] = [];
  return { seen, respond: (r) => { seen.push(r); return answer(r); } };
}

async function one(templateId: string, inputs: Record<string, unknown>, event = pageview, answer?: Parameters<typeof fake>[0], extra: Record<string, unknown> = {}) {
  const f = fake(answer);
  const run = await runTemplate({ template_id: templateId, inputs: inputsOf(inputs), ...extra }, event, f.respond);
  assert.is(run.skipped, null, `${templateId} made no invocation`);
  assert.is(run.invocations.length, 1);
  const [inv] = run.invocations;
  assert.is(inv.error, null, `${templateId} failed: ${inv.error}`);
  return { requests: inv.requests, logs: inv.logs, result: inv.result };
}

// A mapping as PostHog's UI sends it: the mapping template's name, inputs schema and filters, with `inputs`.
function mapping(templateId: string, name: string, inputs: Record<string, unknown>) {
  const template = TEMPLATES.find((t) => t.id === templateId)!.mapping_templates!.find((m) => m.name === name)!;
  return { name, inputs_schema: template.inputs_schema, filters: template.filters, inputs: inputsOf(inputs) };
}

const basic = (r: SentRequest) => Buffer.from(r.headers.Authorization.replace(/^Basic /, ''), 'base64').toString('utf8');

s('the catalogue: every template PostHog users reach for, by id, each listed once', () => {
  const ids = TEMPLATES.map((t) => t.id);
  assert.is(new Set(ids).size, ids.length);
  for (const id of [
    'template-webhook', 'template-slack', 'template-slack-webhook', 'template-discord', 'template-microsoft-teams', 'template-zapier', 'template-make',
    'template-hubspot', 'template-hubspot-company', 'template-customerio', 'template-braze', 'template-intercom', 'template-mailchimp', 'template-sendgrid',
    'template-mailjet-create-contact', 'template-mailjet-update-contact-list', 'template-google-ads', 'template-meta-ads', 'template-linkedin-ads',
    'template-reddit-conversions-api', 'template-tiktok-ads', 'template-google-pubsub', 'template-aws-kinesis', 'template-attio', 'template-loops',
    'template-loops-event', 'template-klaviyo-user', 'template-klaviyo-event', 'template-amplitude', 'template-mixpanel', 'template-segment-api',
    'template-rudderstack', 'template-june', 'template-zendesk', 'template-linear', 'template-github', 'template-json-post',
  ]) assert.ok(ids.includes(id), id);
});

s('webhook: PostHog\'s inputs; the event and person as JSON, the method and headers given', async () => {
  const { requests } = await one('template-webhook', { url: 'https://hooks.example.com/in', method: 'PUT', body: { event: '{event.event}', email: '{person.properties.email}' }, headers: { 'X-Key': 'k', 'Content-Type': 'application/json' } });
  assert.is(requests.length, 1);
  assert.is(requests[0].url, 'https://hooks.example.com/in');
  assert.is(requests[0].method, 'PUT');
  assert.equal(requests[0].headers, { 'X-Key': 'k', 'Content-Type': 'application/json' });
  assert.equal(requests[0].json, { event: '$pageview', email: 'Ada@Example.com' });
});

s('slack (bot): chat.postMessage with the bearer token, channel, text and blocks; ok:false fails', async () => {
  const slack = (r: SentRequest) => {
    const ok = r.headers.Authorization === 'Bearer xoxb-1' && typeof r.json.channel === 'string';
    return { status: 200, body: ok ? { ok: true, ts: '1.2' } : { ok: false, error: 'not_authed' } };
  };
  const { requests } = await one('template-slack', { slack_workspace: 17, access_token: 'xoxb-1', channel: 'C0123', text: 'hi {person.name}', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '{event.event}' } }], thread_ts: '' }, pageview, slack);
  assert.is(requests[0].url, 'https://slack.com/api/chat.postMessage');
  assert.is(requests[0].method, 'POST');
  assert.match(requests[0].headers['Content-Type'], /^application\/json/);
  assert.equal(requests[0].json, { channel: 'C0123', text: 'hi Ada@Example.com', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '$pageview' } }] });
  const f = fake(slack);
  const refused = await runTemplate({ template_id: 'template-slack', inputs: inputsOf({ access_token: 'xoxb-wrong', channel: 'C0123', text: 'x' }) }, pageview, f.respond);
  assert.match(refused.invocations[0].error!, /Slack did not post the message: 200/);
  // A PostHog function with only its Slack connection fails saying what to set.
  const noToken = await runTemplate({ template_id: 'template-slack', inputs: inputsOf({ slack_workspace: 17, channel: 'C0123' }) }, pageview, fake().respond);
  assert.is(noToken.invocations[0].requests.length, 0);
  assert.match(noToken.invocations[0].error!, /set the access_token input/);
});

s('slack (incoming webhook), discord and teams: their webhook formats; the earlier input names still work', async () => {
  const slack = await one('template-slack-webhook', { webhook_url: 'https://hooks.slack.com/services/T/B/x', text: '{event.event}' });
  assert.is(slack.requests[0].url, 'https://hooks.slack.com/services/T/B/x');
  assert.is(slack.requests[0].json.text, '$pageview');

  const discord = await one('template-discord', { webhookUrl: 'https://discord.com/api/webhooks/1/abc', content: '**{person.name}** did {event.event}', allowedMentions: 'roles_users' }, pageview, () => ({ status: 204, body: '' }));
  assert.is(discord.requests[0].url, 'https://discord.com/api/webhooks/1/abc');
  assert.equal(discord.requests[0].json, { content: '**Ada@Example.com** did $pageview', allowed_mentions: { parse: ['roles', 'users'] } });
  const older = await one('template-discord', { webhook_url: 'https://discord.com/api/webhooks/1/abc' }, pageview, () => ({ status: 204, body: '' }));
  assert.equal(older.requests[0].json.allowed_mentions, { parse: [] });
  const elsewhere = await runTemplate({ template_id: 'template-discord', inputs: inputsOf({ webhookUrl: 'https://evil.example.com/api/webhooks/1' }) }, pageview, fake().respond);
  assert.is(elsewhere.invocations[0].requests.length, 0);
  assert.match(elsewhere.invocations[0].error!, /must be a Discord channel webhook/);

  const teams = await one('template-microsoft-teams', { webhookUrl: 'https://x.webhook.office.com/webhookb2/a/IncomingWebhook/b/c', text: '{event.event}' }, pageview, () => ({ status: 202, body: '' }));
  const body = teams.requests[0].json;
  assert.is(body.type, 'message');
  assert.is(body.attachments[0].contentType, 'application/vnd.microsoft.card.adaptive');
  assert.equal(body.attachments[0].content.body, [{ type: 'TextBlock', text: '$pageview', wrap: true }]);
  const teamsOlder = await one('template-microsoft-teams', { webhook_url: 'https://x.webhook.office.com/webhookb2/a' }, pageview);
  assert.is(teamsOlder.requests[0].url, 'https://x.webhook.office.com/webhookb2/a');
});

s('zapier and make: the JSON body to the hook; a Zapier path alone is completed', async () => {
  const zap = await one('template-zapier', { hook: '/hooks/catch/1/abc/', body: { data: { event: '{event.event}', email: '{person.properties.email}' } } });
  assert.is(zap.requests[0].url, 'https://hooks.zapier.com/hooks/catch/1/abc/');
  assert.equal(zap.requests[0].json, { data: { event: '$pageview', email: 'Ada@Example.com' } });
  const full = await one('template-zapier', { hook: 'https://hooks.zapier.com/hooks/catch/1/abc/', body: { a: 1 } });
  assert.is(full.requests[0].url, 'https://hooks.zapier.com/hooks/catch/1/abc/');
  const make = await one('template-make', { webhookUrl: 'https://hook.eu2.make.com/abc', body: { data: { uuid: '{event.uuid}' } } });
  assert.is(make.requests[0].url, 'https://hook.eu2.make.com/abc');
  assert.equal(make.requests[0].json, { data: { uuid: pageview.event.uuid } });
});

s('hubspot: PATCH by posthog_group_id; on 404 the property is made and the company created', async () => {
  const { requests } = await one('template-hubspot-company', {
    oauth: 3, access_token: 'pat-1', companyId: '{groups.company.id}', properties: { name: '{groups.company.properties.name}', tags: ['a'] },
  }, groupIdentify, (r) => (r.method === 'PATCH' ? { status: 404, body: { message: 'not found' } } : r.url.endsWith('/properties/companies') ? { status: 409, body: {} } : { status: 201, body: { id: '1' } }));
  assert.equal(requests.map((r) => `${r.method} ${r.url}`), [
    'PATCH https://api.hubapi.com/crm/v3/objects/companies/acme?idProperty=posthog_group_id',
    'POST https://api.hubapi.com/crm/v3/properties/companies',
    'POST https://api.hubapi.com/crm/v3/objects/companies',
  ]);
  assert.is(requests[0].headers.Authorization, 'Bearer pat-1');
  assert.equal(requests[0].json, { properties: { posthog_group_id: 'acme', name: 'Acme', tags: '["a"]' } });
  assert.equal(requests[1].json.name, 'posthog_group_id');
  assert.is(requests[1].json.hasUniqueValue, true);
  assert.equal(requests[2].json, requests[0].json);
});

s('hubspot contacts: one batch upsert by email with the mapped properties; an empty email sends nothing; a refusal fails', async () => {
  const { requests } = await one('template-hubspot', {
    oauth: 3, access_token: 'pat-2', email: '{person.properties.email}', properties: { firstname: '{person.properties.firstname}', plan: '{person.properties.plan}', tags: ['a'] },
  }, identify);
  assert.equal(requests.map((r) => `${r.method} ${r.url}`), ['POST https://api.hubapi.com/crm/v3/objects/contacts/batch/upsert']);
  assert.is(requests[0].headers.Authorization, 'Bearer pat-2');
  assert.equal(requests[0].json, { inputs: [{ id: 'Ada@Example.com', idProperty: 'email', properties: { email: 'Ada@Example.com', firstname: 'Ada', plan: 'pro', tags: '["a"]' } }] });
  const noEmail = await one('template-hubspot', { access_token: 'pat-2', email: '{person.properties.work_email}', properties: { firstname: 'x' } }, identify);
  assert.is(noEmail.requests.length, 0);
  const refused = await runTemplate({ template_id: 'template-hubspot', inputs: inputsOf({ access_token: 'pat-2', email: 'a@b.c', properties: {} }) }, identify, fake(() => ({ status: 401, body: { message: 'expired' } })).respond);
  assert.match(refused.invocations[0].error!, /HubSpot did not take contact a@b.c: 401/);
});

s('attio, intercom and zendesk: their contact upserts', async () => {
  const attio = await one('template-attio', { apiKey: 'at-1', email: '{person.properties.email}', personAttributes: { job_title: 'Engineer', empty: '' } }, identify);
  assert.is(attio.requests[0].url, 'https://api.attio.com/v2/objects/people/records?matching_attribute=email_addresses');
  assert.is(attio.requests[0].method, 'PUT');
  assert.is(attio.requests[0].headers.Authorization, 'Bearer at-1');
  assert.equal(attio.requests[0].json, { data: { values: { email_addresses: [{ email_address: 'Ada@Example.com' }], job_title: 'Engineer' } } });

  const intercom = await one('template-intercom', { access_token: 'ic-1', region: 'Europe', email: '{person.properties.email}', include_all_properties: false, properties: { name: '{person.properties.name}' }, customProperties: { plan: '{person.properties.plan}' } }, identify,
    (r) => (r.url.endsWith('/contacts/search') ? { status: 200, body: { total_count: 1, data: [{ id: 'c-9' }] } } : { status: 200, body: { id: 'c-9' } }));
  assert.equal(intercom.requests.map((r) => `${r.method} ${r.url}`), ['POST https://api.eu.intercom.io/contacts/search', 'PUT https://api.eu.intercom.io/contacts/c-9']);
  assert.is(intercom.requests[0].headers['Intercom-Version'], '2.11');
  assert.equal(intercom.requests[0].json, { query: { field: 'email', operator: '=', value: 'Ada@Example.com' } });
  assert.equal(intercom.requests[1].json, { email: 'Ada@Example.com', custom_attributes: { plan: 'pro' }, name: 'Ada Lovelace' });

  const zendesk = await one('template-zendesk', { subdomain: 'acme', admin_email: 'admin@acme.test', token: 'zd-1', email: '{person.properties.email}', name: '{person.properties.name}', attributes: { plan: '{person.properties.plan}' } }, identify);
  assert.is(zendesk.requests[0].url, 'https://acme.zendesk.com/api/v2/users/create_or_update');
  assert.is(basic(zendesk.requests[0]), 'admin@acme.test/token:zd-1');
  assert.equal(zendesk.requests[0].json, { user: { email: 'Ada@Example.com', name: 'Ada Lovelace', skip_verify_email: true, user_fields: { plan: 'pro' } } });
});

s('customer.io: identify and page calls to the Track API v2 entity endpoint', async () => {
  const common = { site_id: 'site', token: 'key', host: 'track-eu.customer.io', identifier_key: 'email', identifier_value: '{person.properties.email}', action: 'automatic', include_all_properties: false, attributes: { plan: '{person.properties.plan}' } };
  const id = await one('template-customerio', common, identify);
  assert.is(id.requests[0].url, 'https://track-eu.customer.io/api/v2/entity');
  assert.is(basic(id.requests[0]), 'site:key');
  assert.equal(id.requests[0].json, { type: 'person', action: 'identify', name: null, identifiers: { email: 'Ada@Example.com' }, attributes: { plan: 'pro' }, timestamp: 1795773600 });
  const page = await one('template-customerio', common, pageview);
  assert.is(page.requests[0].json.action, 'page');
  assert.is(page.requests[0].json.name, 'https://example.com/pricing');
});

s('braze, mailchimp and sendgrid', async () => {
  const braze = await one('template-braze', { brazeEndpoint: 'https://rest.fra-01.braze.eu', apiKey: 'bz', attributes: { email: '{person.properties.email}', external_id: '{person.id}' }, event: { name: '{event.event}', external_id: '{person.id}', time: '{event.timestamp}' } }, order, () => ({ status: 201, body: { message: 'success' } }));
  assert.is(braze.requests[0].url, 'https://rest.fra-01.braze.eu/users/track');
  assert.is(braze.requests[0].headers.Authorization, 'Bearer bz');
  assert.equal(braze.requests[0].json, { attributes: [{ email: 'Ada@Example.com', external_id: person.id }], events: [{ name: 'Order Completed', external_id: person.id, time: '2026-11-27T10:00:00.000Z' }] });

  const mc = await one('template-mailchimp', { apiKey: 'mc-us6', audienceId: 'aud', dataCenterId: 'us6', email: '{person.properties.email}', doubleOptIn: true, include_all_properties: false, properties: { FNAME: '{person.properties.first_name}' } }, identify);
  assert.is(mc.requests[0].url, `https://us6.api.mailchimp.com/3.0/lists/aud/members/${createHash('md5').update('ada@example.com').digest('hex')}`);
  assert.is(mc.requests[0].method, 'PUT');
  assert.equal(mc.requests[0].json, { email_address: 'Ada@Example.com', status_if_new: 'pending', merge_fields: { FNAME: 'Ada' } });

  const sg = await one('template-sendgrid', { api_key: 'SG.1', email: '{person.properties.email}', properties: { first_name: '{person.properties.first_name}' }, custom_fields: { plan: '{person.properties.plan}' } }, identify,
    (r) => (r.method === 'GET' ? { status: 200, body: { custom_fields: [{ id: 'e1_T', name: 'plan' }, { id: 'e2_T', name: 'other' }] } } : { status: 202, body: { job_id: 'j' } }));
  assert.equal(sg.requests.map((r) => `${r.method} ${r.url}`), ['GET https://api.sendgrid.com/v3/marketing/field_definitions', 'PUT https://api.sendgrid.com/v3/marketing/contacts']);
  assert.is(sg.requests[0].body, null);
  assert.equal(sg.requests[1].json, { contacts: [{ email: 'Ada@Example.com', first_name: 'Ada', custom_fields: { e1_T: 'pro' } }] });
});

s('mailjet, loops and klaviyo', async () => {
  const mj = await one('template-mailjet-create-contact', { api_key: 'k', secret_key: 's', email: '{person.properties.email}', name: '{person.properties.name}' }, identify);
  assert.is(mj.requests[0].url, 'https://api.mailjet.com/v3/REST/contact');
  assert.is(basic(mj.requests[0]), 'k:s');
  assert.equal(mj.requests[0].json, { Email: 'Ada@Example.com', Name: 'Ada Lovelace', IsExcludedFromCampaigns: false });
  const list = await one('template-mailjet-update-contact-list', { api_key: 'k', secret_key: 's', email: '{person.properties.email}', contact_list_id: '77', action: 'addforce' }, identify);
  assert.is(list.requests[0].url, 'https://api.mailjet.com/v3/REST/contact/Ada%40Example.com/managecontactslists');
  assert.equal(list.requests[0].json, { ContactsLists: [{ Action: 'addforce', ListID: '77' }] });

  const loops = await one('template-loops', { apiKey: 'lp', email: '{person.properties.email}', include_all_properties: false, properties: { firstName: '{person.properties.first_name}' } }, identify);
  assert.is(loops.requests[0].url, 'https://app.loops.so/api/v1/contacts/update');
  assert.is(loops.requests[0].headers.Authorization, 'Bearer lp');
  assert.equal(loops.requests[0].json, { email: 'Ada@Example.com', userId: person.id, firstName: 'Ada' });
  const loopsEvent = await one('template-loops-event', { apiKey: 'lp', email: '{person.properties.email}', include_all_properties: true, properties: {} }, pageview);
  assert.equal(loopsEvent.requests[0].json, { email: 'Ada@Example.com', userId: person.id, eventName: '$pageview', eventProperties: { plan: 'pro' } });

  const kUser = await one('template-klaviyo-user', { apiKey: 'pk_1', email: '{person.properties.email}', externalId: '{person.id}', include_all_properties: false, customProperties: { plan: '{person.properties.plan}' } }, identify, () => ({ status: 201, body: { data: { id: 'p1' } } }));
  assert.is(kUser.requests[0].url, 'https://a.klaviyo.com/api/profile-import');
  assert.is(kUser.requests[0].headers.Authorization, 'Klaviyo-API-Key pk_1');
  assert.ok(kUser.requests[0].headers.revision);
  assert.equal(kUser.requests[0].json, { data: { type: 'profile', attributes: { properties: { plan: 'pro' }, location: {}, email: 'Ada@Example.com', external_id: person.id } } });
  const kEvent = await one('template-klaviyo-event', { apiKey: 'pk_1', email: '{person.properties.email}', externalId: '{event.properties.none}', include_all_properties: false, attributes: { revenue: '{event.properties.revenue}' } }, order, () => ({ status: 202, body: '' }));
  const attrs = kEvent.requests[0].json.data.attributes;
  assert.equal(attrs.metric, { data: { type: 'metric', attributes: { name: 'Order Completed' } } });
  assert.equal(attrs.profile, { data: { type: 'profile', attributes: { email: 'Ada@Example.com' } } });
  assert.equal(attrs.properties, { revenue: 42.5 });
});

s('google ads: a click conversion with hashed identifiers to uploadClickConversions', async () => {
  const run = await runTemplate({
    template_id: 'template-google-ads', inputs: inputsOf({ oauth: 5, access_token: 'ya29', developer_token: 'dev', customerId: '123-456-7890/999' }),
    mappings: [{ ...mapping('template-google-ads', 'Conversion', { conversionActionId: '555', gclid: '{event.properties.gclid}', conversionDateTime: "{formatDateTime(toDateTime(event.timestamp), '%Y-%m-%d %H:%i:%S')}+00:00", conversionValue: '{event.properties.revenue}', currencyCode: 'EUR', email: '{person.properties.email}' }), filters: { events: [{ id: 'Order Completed', type: 'events' }] } }],
  }, templateEvent({ ...order.event, properties: { ...order.event.properties, gclid: 'g-1' } }, person), fake(() => ({ status: 200, body: { results: [{}] } })).respond);
  const [inv] = run.invocations;
  assert.is(inv.error, null);
  const [r] = inv.requests;
  assert.is(r.url, 'https://googleads.googleapis.com/v18/customers/1234567890:uploadClickConversions');
  assert.equal({ a: r.headers.Authorization, d: r.headers['developer-token'], l: r.headers['login-customer-id'] }, { a: 'Bearer ya29', d: 'dev', l: '999' });
  assert.equal(r.json, {
    conversions: [{
      conversionAction: 'customers/1234567890/conversionActions/555', conversionDateTime: '2026-11-27 10:00:00+00:00', gclid: 'g-1',
      userIdentifiers: [{ hashedEmail: sha('ada@example.com') }], conversionValue: 42.5, currencyCode: 'EUR',
    }],
    partialFailure: true,
  });
});

s('meta, linkedin, reddit and tiktok conversions: mappings pick the conversion; user data hashed', async () => {
  const meta = await runTemplate({
    template_id: 'template-meta-ads',
    inputs: inputsOf({ accessToken: 'EAA', pixelId: '42', eventId: '{event.uuid}', eventTime: '{toInt(toUnixTimestamp(event.timestamp))}', actionSource: 'website', userData: { em: '{sha256Hex(lower(person.properties.email))}', empty: '' } }),
    mappings: [
      mapping('template-meta-ads', 'Page Viewed', { eventName: 'PageView', customData: {} }),
      mapping('template-meta-ads', 'Order Completed', { eventName: 'Purchase', customData: { currency: '{event.properties.currency}', value: '{event.properties.revenue}' } }),
    ],
  }, order, fake(() => ({ status: 200, body: { events_received: 1 } })).respond);
  assert.equal(meta.invocations.map((i) => i.mappingIndex), [1]);
  const m = meta.invocations[0].requests[0];
  assert.is(m.url, 'https://graph.facebook.com/v21.0/42/events');
  assert.equal(m.json, {
    data: [{ event_name: 'Purchase', event_time: 1795773600, event_id: order.event.uuid, action_source: 'website', user_data: { em: sha('ada@example.com') }, custom_data: { currency: 'EUR', value: 42.5 } }],
    access_token: 'EAA',
  });

  const li = await one('template-linkedin-ads', { access_token: 'li', accountId: '1', conversionRuleId: '99', conversionDateTime: '{toUnixTimestampMilli(event.timestamp)}', conversionValue: '42.5', currencyCode: 'EUR', eventId: '{event.uuid}', userIds: { SHA256_EMAIL: '{sha256Hex(lower(person.properties.email))}' }, userInfo: { firstName: 'Ada', lastName: '' } }, order, () => ({ status: 201, body: '' }));
  assert.is(li.requests[0].url, 'https://api.linkedin.com/rest/conversionEvents');
  assert.ok(li.requests[0].headers['LinkedIn-Version']);
  assert.equal(li.requests[0].json, {
    conversion: 'urn:lla:llaPartnerConversion:99', conversionHappenedAt: 1795773600000, user: { userIds: [{ idType: 'SHA256_EMAIL', idValue: sha('ada@example.com') }] },
    eventId: order.event.uuid, conversionValue: { currencyCode: 'EUR', amount: '42.5' },
  });

  const reddit = await runTemplate({
    template_id: 'template-reddit-conversions-api', inputs: inputsOf({ accountId: 't2_abc', conversionsAccessToken: 'rt', userProperties: { email: '{sha256Hex(lower(person.properties.email))}' } }),
    mappings: [mapping('template-reddit-conversions-api', 'Page Visit', { eventType: 'PageVisit' }), mapping('template-reddit-conversions-api', 'Order Completed', { eventType: 'Purchase', eventProperties: { conversion_id: '{event.uuid}', value: '{event.properties.revenue}', currency: '{event.properties.currency}' } })],
  }, order, fake().respond);
  const rr = reddit.invocations[0].requests[0];
  assert.is(rr.url, 'https://ads-api.reddit.com/api/v2.0/conversions/events/t2_abc');
  assert.is(rr.headers.Authorization, 'Bearer rt');
  assert.ok(rr.headers['User-Agent']);
  assert.equal(rr.json, { test_mode: false, events: [{ event_at: '2026-11-27T10:00:00.000Z', event_type: { tracking_type: 'Purchase' }, user: { email: sha('ada@example.com') }, event_metadata: { conversion_id: order.event.uuid, value: 42.5, currency: 'EUR' } }] });

  const tiktok = await runTemplate({
    template_id: 'template-tiktok-ads', inputs: inputsOf({ accessToken: 'tt', pixelId: 'PX', userProperties: { email: '{sha256Hex(lower(person.properties.email))}' } }),
    mappings: [mapping('template-tiktok-ads', 'Order Completed', { eventName: 'CompletePayment', eventId: '{event.uuid}', eventTimestamp: '{toUnixTimestamp(event.timestamp)}', propertyProperties: { currency: '{event.properties.currency}', value: '{event.properties.revenue}' }, pageProperties: { url: '{event.properties.$current_url}' } })],
  }, order, fake(() => ({ status: 200, body: { code: 0, message: 'OK' } })).respond);
  const t = tiktok.invocations[0];
  assert.is(t.error, null);
  assert.is(t.requests[0].url, 'https://business-api.tiktok.com/open_api/v1.3/event/track/');
  assert.is(t.requests[0].headers['Access-Token'], 'tt');
  assert.equal(t.requests[0].json, { event_source: 'web', event_source_id: 'PX', data: [{ event: 'CompletePayment', event_time: 1795773600, event_id: order.event.uuid, user: { email: sha('ada@example.com') }, properties: { currency: 'EUR', value: 42.5 }, page: {} }] });
});

s('google pub/sub: the payload base64 in a published message', async () => {
  const { requests } = await one('template-google-pubsub', { access_token: 'ya29', topicId: 'projects/p/topics/t', payload: { event: '{event.event}' }, attributes: { kind: 'event' } });
  assert.is(requests[0].url, 'https://pubsub.googleapis.com/v1/projects/p/topics/t:publish');
  assert.is(requests[0].headers.Authorization, 'Bearer ya29');
  const [message] = requests[0].json.messages;
  assert.equal(JSON.parse(Buffer.from(message.data, 'base64').toString('utf8')), { event: '$pageview' });
  assert.equal(message.attributes, { kind: 'event' });
});

s('amazon kinesis: PutRecord signed with AWS SigV4 (the signature checks out)', async () => {
  const { requests } = await one('template-aws-kinesis', { aws_access_key_id: 'AKIDEXAMPLE', aws_secret_access_key: 'wJalrXUtnFEMI/K7MDENG', aws_region: 'eu-west-1', aws_kinesis_stream_name: 'events', aws_kinesis_partition_key: '{event.uuid}', payload: { event: '{event.event}' } });
  const [r] = requests;
  assert.is(r.url, 'https://kinesis.eu-west-1.amazonaws.com/');
  assert.is(r.headers['X-Amz-Target'], 'Kinesis_20131202.PutRecord');
  assert.is(r.headers['Content-Type'], 'application/x-amz-json-1.1');
  const body = JSON.parse(r.body!);
  assert.equal({ ...body, Data: JSON.parse(Buffer.from(body.Data, 'base64').toString('utf8')) }, { StreamName: 'events', PartitionKey: pageview.event.uuid, Data: { event: '$pageview' } });
  // The AWS side of it: the canonical request and string to sign rebuilt from what was sent.
  const amzDate = r.headers['X-Amz-Date'];
  assert.match(amzDate, /^\d{8}T\d{6}Z$/);
  assert.ok(Math.abs(Date.parse(`${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`) - Date.now()) < 15 * 60_000);
  const day = amzDate.slice(0, 8);
  const canonical = ['POST', '/', '', 'content-type:application/x-amz-json-1.1', 'host:kinesis.eu-west-1.amazonaws.com', `x-amz-date:${amzDate}`,
    'x-amz-target:Kinesis_20131202.PutRecord', '', 'content-type;host;x-amz-date;x-amz-target', sha(r.body!)].join('\n');
  const scope = `${day}/eu-west-1/kinesis/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha(canonical)].join('\n');
  let key: Buffer = createHmac('sha256', 'AWS4wJalrXUtnFEMI/K7MDENG').update(day).digest();
  for (const part of ['eu-west-1', 'kinesis', 'aws4_request']) key = createHmac('sha256', key).update(part).digest();
  const signature = createHmac('sha256', key).update(toSign).digest('hex');
  assert.is(r.headers.Authorization, `AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/${scope}, SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=${signature}`);
});

s('amplitude, mixpanel, segment, rudderstack and june: their tracking APIs', async () => {
  const amp = await one('template-amplitude', { api_key: 'amp', region: 'eu', user_id: '{person.properties.email}', device_id: '{event.properties.$device_id}', event_properties: { url: '{event.properties.$current_url}' }, user_properties: {} });
  assert.is(amp.requests[0].url, 'https://api.eu.amplitude.com/2/httpapi');
  assert.equal(amp.requests[0].json, { api_key: 'amp', events: [{ event_type: '$pageview', time: 1795773600000, insert_id: pageview.event.uuid, event_properties: { url: 'https://example.com/pricing' }, user_properties: {}, user_id: 'Ada@Example.com', device_id: 'dev-1', ip: '203.0.113.9' }] });

  const mp = await one('template-mixpanel', { project_id: '7', api_secret: 'sec', region: 'us', distinct_id: '{event.distinct_id}', include_all_properties: true, properties: { $current_url: '{event.properties.$current_url}' } });
  assert.is(mp.requests[0].url, 'https://api.mixpanel.com/import?strict=1&project_id=7');
  assert.is(basic(mp.requests[0]), 'sec:');
  assert.equal(mp.requests[0].json, [{ event: '$pageview', properties: { time: 1795773600000, distinct_id: 'd-1', $insert_id: pageview.event.uuid.replaceAll('-', ''), plan: 'pro', $current_url: 'https://example.com/pricing' } }]);

  const seg = await runTemplate({
    template_id: 'template-segment-api', inputs: inputsOf({ api_url: 'https://api.segment.io', write_key: 'wk' }),
    mappings: [mapping('template-segment-api', 'Page views', { call: 'page', payload: { userId: '{event.distinct_id}', name: '{event.properties.$pathname}' } })],
  }, pageview, fake().respond);
  assert.is(seg.invocations[0].requests[0].url, 'https://api.segment.io/v1/page');
  assert.is(basic(seg.invocations[0].requests[0]), 'wk:');
  assert.equal(seg.invocations[0].requests[0].json, { userId: 'd-1', name: '/pricing' });

  const rs = await one('template-rudderstack', { host: 'https://acme.dataplane.rudderstack.com', token: 'rw', identifier: '{person.id}' }, identify);
  assert.is(rs.requests[0].url, 'https://acme.dataplane.rudderstack.com/v1/batch');
  assert.is(basic(rs.requests[0]), 'rw:');
  const [message] = rs.requests[0].json.batch;
  assert.equal({ type: message.type, userId: message.userId, traits: message.traits, messageId: message.messageId }, { type: 'identify', userId: person.id, traits: { email: 'ada@example.com' }, messageId: identify.event.uuid });

  const june = await one('template-june', { apiKey: 'jk', include_all_properties: false, properties: { email: '{person.properties.email}' } }, order);
  assert.is(june.requests[0].url, 'https://api.june.so/sdk/track');
  assert.is(june.requests[0].headers.Authorization, 'Basic jk');
  assert.equal({ event: june.requests[0].json.event, anonymousId: june.requests[0].json.anonymousId, traits: june.requests[0].json.traits }, { event: 'Order Completed', anonymousId: 'd-1', traits: { email: 'Ada@Example.com' } });
});

s('linear and github: an issue for an error tracking issue, linked back', async () => {
  const linear = await one('template-linear', { linear_workspace: 4, access_token: 'lin_api_1', team: 'team-1', title: '{event.properties.$exception_types[1]}', description: '{event.properties.$exception_values[1]}', posthog_issue_id: '{event.properties.$exception_issue_id}' }, exception,
    (r) => (r.json.query.startsWith('mutation IssueCreate') ? { status: 200, body: { data: { issueCreate: { success: true, issue: { id: 'uuid-1', identifier: 'ENG-1', url: 'https://linear.app/x/ENG-1' } } } } } : { status: 200, body: { data: { attachmentCreate: { success: true } } } }));
  assert.is(linear.requests.length, 2);
  assert.is(linear.requests[0].url, 'https://api.linear.app/graphql');
  assert.is(linear.requests[0].headers.Authorization, 'lin_api_1');
  assert.equal(linear.requests[0].json.variables, { input: { teamId: 'team-1', title: 'TypeError', description: 'x is undefined' } });
  assert.equal(linear.requests[1].json.variables.input, { issueId: 'uuid-1', title: 'Error tracking issue', url: 'http://localhost:8000/project/1/error_tracking/iss-1' });
  assert.equal(linear.result, { identifier: 'ENG-1', url: 'https://linear.app/x/ENG-1' });

  const gh = await one('template-github', { access_token: 'ghp', repository: 'acme/app', title: '{event.properties.$exception_types[1]}', description: '{event.properties.$exception_values[1]}', posthog_issue_id: 'iss-1' }, exception, () => ({ status: 201, body: { number: 7, html_url: 'https://github.com/acme/app/issues/7' } }));
  assert.is(gh.requests[0].url, 'https://api.github.com/repos/acme/app/issues');
  assert.is(gh.requests[0].headers.Accept, 'application/vnd.github+json');
  assert.equal(gh.requests[0].json, { title: 'TypeError', body: 'x is undefined\n\n[View the issue](http://localhost:8000/project/1/error_tracking/iss-1)' });
});

s('json post: the payload with a bearer token', async () => {
  const { requests } = await one('template-json-post', { url: 'https://in.example.com/e', token: 'tk', payload: { event: '{event.event}' } });
  assert.is(requests[0].headers.Authorization, 'Bearer tk');
  assert.equal(requests[0].json, { event: '$pageview' });
});

s('every template is exercised above, and README\'s catalogue table lists each with its inputs', () => {
  const source = readFileSync(join(repoRoot, 'test/destinations/catalogue.test.ts'), 'utf8');
  // Transformations' templates run without a fetch, in the test of their host functions.
  const transformations = readFileSync(join(repoRoot, 'test/destinations/transform-geoip.test.ts'), 'utf8');
  for (const t of TEMPLATES) assert.ok((t.type === 'transformation' ? transformations : source).includes(`'${t.id}'`), t.id);
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const rows = readme.split('\n').filter((line) => line.startsWith('| `template-'));
  const expected = TEMPLATES.map((t) => `| \`${t.id}\` | ${t.description} | ${t.inputs_schema.filter((i) => !i.hidden).map((i) => `\`${i.key}\``).join(', ')} |`);
  assert.equal(rows, expected);
});

s.run();
