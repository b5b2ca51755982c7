// CRMs and support desks: HubSpot contacts and companies, Attio people, Intercom contacts, Zendesk
// users. PostHog's ids and input names; the request formats are each API's own
// (developers.hubspot.com CRM v3 objects, Attio's v2 records assert, Intercom's v2.11
// contacts, Zendesk's users/create_or_update).
import type { HogFunctionTemplate } from './types.js';
import { INTEGRATION_NOTE } from './integration.js';

const tokenInput = (label: string, description: string) => ({ key: 'access_token', type: 'string', label, description, secret: true, required: false });

// A contact upserted by its email (HubSpot's batch upsert with idProperty email, one input):
// objects and lists go as JSON text, as HubSpot properties hold strings.
const hubspotContactCode = `let token := inputs.access_token
if (empty(token)) {
  throw Error('No HubSpot token: set the access_token input to a private app token (HubSpot connections are not available here)')
}
let properties := {'email': inputs.email}
for (let key, value in inputs.properties) {
  properties[key] := typeof(value) in ('object', 'array', 'tuple') ? jsonStringify(value) : value
}
if (empty(properties.email)) {
  print('The email input is empty: no contact to create or update')
  return
}
let res := fetch('https://api.hubapi.com/crm/v3/objects/contacts/batch/upsert', {
  'method': 'POST',
  'headers': {'Authorization': f'Bearer {token}', 'Content-Type': 'application/json'},
  'body': {'inputs': [{'id': properties.email, 'idProperty': 'email', 'properties': properties}]}
})
if (res.status != 200) {
  throw Error(f'HubSpot did not take contact {properties.email}: {res.status}: {res.body}')
}
print(f'Contact {properties.email} created or updated')
`;

export const hubspotContactTemplate: HogFunctionTemplate = {
  id: 'template-hubspot',
  name: 'HubSpot',
  description: 'Creates or updates a contact in HubSpot, by email, when a person is identified',
  type: 'destination',
  status: 'stable',
  free: false,
  category: ['CRM', 'Customer Success'],
  icon_url: '/static/services/hubspot.png',
  code: hubspotContactCode,
  inputs_schema: [
    { key: 'oauth', type: 'integration', integration: 'hubspot', label: 'Hubspot connection', secret: false, required: false, description: INTEGRATION_NOTE },
    tokenInput('HubSpot access token', 'A private app\'s token with crm.objects.contacts.read and .write.'),
    { key: 'email', type: 'string', label: 'Email of the user', secret: false, required: true, default: '{person.properties.email}' },
    {
      key: 'properties', type: 'dictionary', label: 'Property mapping', secret: false, required: true,
      default: {
        firstname: '{person.properties.firstname}', lastname: '{person.properties.lastname}', company: '{person.properties.company}',
        phone: '{person.properties.phone}', website: '{person.properties.website}',
      },
    },
  ],
  filters: { events: [{ id: '$identify', name: '$identify', type: 'events', order: 0 }] },
  masking: null,
  mapping_templates: null,
};

// Companies are upserted by a unique property hedgerow's events know them by,
// posthog_group_id: PATCH by that id property, and on 404 the property is made (409 when
// it exists already) and the company created.
const hubspotCode = `let token := inputs.access_token
if (empty(token)) {
  throw Error('No HubSpot token: set the access_token input to a private app token (HubSpot connections are not available here)')
}
if (empty(inputs.companyId)) {
  print('The companyId input is empty: nothing to send')
  return
}

let properties := {'posthog_group_id': inputs.companyId}
for (let key, value in inputs.properties) {
  properties[key] := typeof(value) in ('object', 'array', 'tuple') ? jsonStringify(value) : value
}
let headers := {'Authorization': f'Bearer {token}', 'Content-Type': 'application/json'}
let base := 'https://api.hubapi.com/crm/v3'

let res := fetch(f'{base}/objects/companies/{encodeURLComponent(inputs.companyId)}?idProperty=posthog_group_id', {
  'method': 'PATCH', 'headers': headers, 'body': {'properties': properties}
})
if (res.status == 404) {
  let made := fetch(f'{base}/properties/companies', {
    'method': 'POST', 'headers': headers,
    'body': {
      'name': 'posthog_group_id', 'label': 'PostHog Group ID', 'groupName': 'companyinformation', 'type': 'string',
      'fieldType': 'text', 'hasUniqueValue': true, 'hidden': true, 'formField': false
    }
  })
  if (made.status >= 400 and made.status != 409) {
    throw Error(f'HubSpot did not create the posthog_group_id property: {made.status}: {made.body}')
  }
  res := fetch(f'{base}/objects/companies', {'method': 'POST', 'headers': headers, 'body': {'properties': properties}})
}
if (res.status >= 400) {
  throw Error(f'HubSpot did not take company {inputs.companyId}: {res.status}: {res.body}')
}
`;

export const hubspotTemplate: HogFunctionTemplate = {
  id: 'template-hubspot-company',
  name: 'HubSpot',
  description: 'Creates or updates a company in HubSpot from a group identify',
  type: 'destination',
  status: 'stable',
  free: false,
  category: ['CRM', 'Customer Success'],
  icon_url: '/static/services/hubspot.png',
  code: hubspotCode,
  inputs_schema: [
    { key: 'oauth', type: 'integration', integration: 'hubspot', label: 'Hubspot connection', secret: false, required: false, description: INTEGRATION_NOTE },
    tokenInput('HubSpot access token', 'A private app\'s token with crm.objects.companies.read and .write (and crm.schemas.companies.write).'),
    { key: 'companyId', type: 'string', label: 'Company ID', secret: false, required: true, default: '{groups.company.id}' },
    {
      key: 'properties', type: 'dictionary', label: 'Property mapping', secret: false, required: true,
      default: { name: '{groups.company.properties.name}', domain: '{groups.company.properties.domain}', description: '{groups.company.properties.description}' },
    },
  ],
  filters: { events: [{ id: '$groupidentify', name: 'Group identify', type: 'events', order: 0 }] },
  masking: null,
  mapping_templates: null,
};

const attioCode = `let values := {'email_addresses': [{'email_address': inputs.email}]}
for (let key, value in inputs.personAttributes) {
  if (not empty(value)) {
    values[key] := value
  }
}

let res := fetch('https://api.attio.com/v2/objects/people/records?matching_attribute=email_addresses', {
  'method': 'PUT',
  'headers': {'Authorization': f'Bearer {inputs.apiKey}', 'Content-Type': 'application/json'},
  'body': {'data': {'values': values}}
})
if (res.status >= 400) {
  throw Error(f'Attio did not take the person: {res.status}: {res.body}')
}
`;

export const attioTemplate: HogFunctionTemplate = {
  id: 'template-attio',
  name: 'Attio',
  description: 'Creates or updates a person in Attio, matched by email',
  type: 'destination',
  status: 'beta',
  free: false,
  category: ['CRM'],
  icon_url: '/static/services/attio.png',
  code: attioCode,
  inputs_schema: [
    { key: 'apiKey', type: 'string', label: 'Access token', secret: true, required: true },
    { key: 'email', type: 'string', label: 'Email of the user', secret: false, required: true, default: '{person.properties.email}' },
    {
      key: 'personAttributes', type: 'dictionary', label: 'Additional Person attributes', secret: false, required: true,
      default: { name: '{person.properties.name}', job_title: '{person.properties.job_title}' },
    },
  ],
  filters: { events: [], actions: [], filter_test_accounts: true },
  masking: null,
  mapping_templates: null,
};

// Search the contact by email; one found is updated, none is created.
const intercomCode = `let token := inputs.access_token
if (empty(token)) {
  throw Error('No Intercom token: set the access_token input (Intercom connections are not available here)')
}
if (empty(inputs.email)) {
  print('No email: nothing to send')
  return
}

let hosts := {'US': 'api.intercom.io', 'Europe': 'api.eu.intercom.io', 'AU': 'api.au.intercom.io'}
let base := f'https://{hosts[inputs.region] ?? hosts.US}'
let headers := {
  'Authorization': f'Bearer {token}', 'Accept': 'application/json', 'Content-Type': 'application/json', 'Intercom-Version': '2.11'
}

let found := fetch(f'{base}/contacts/search', {
  'method': 'POST', 'headers': headers,
  'body': {'query': {'field': 'email', 'operator': '=', 'value': inputs.email}}
})
if (found.status >= 400) {
  throw Error(f'Intercom did not search contacts: {found.status}: {found.body}')
}

let contact := {'email': inputs.email, 'custom_attributes': {}}
if (inputs.include_all_properties) {
  for (let key, value in person.properties) {
    if (not empty(value) and not key like '$%') {
      contact[key] := value
    }
  }
}
for (let key, value in inputs.properties) {
  if (not empty(value)) {
    contact[key] := value
  }
}
for (let key, value in inputs.customProperties) {
  if (not empty(value)) {
    contact.custom_attributes[key] := value
  }
}

let res := null
if (found.body.total_count == 0) {
  res := fetch(f'{base}/contacts', {'method': 'POST', 'headers': headers, 'body': contact})
} else if (found.body.total_count == 1) {
  res := fetch(f'{base}/contacts/{found.body.data[1].id}', {'method': 'PUT', 'headers': headers, 'body': contact})
} else {
  throw Error(f'Intercom has {found.body.total_count} contacts with this email: none was updated')
}
if (res.status >= 400) {
  throw Error(f'Intercom did not take the contact: {res.status}: {res.body}')
}
`;

export const intercomTemplate: HogFunctionTemplate = {
  id: 'template-intercom',
  name: 'Intercom',
  description: 'Creates or updates a contact in Intercom, matched by email',
  type: 'destination',
  status: 'stable',
  free: false,
  category: ['Customer Success'],
  icon_url: '/static/services/intercom.png',
  code: intercomCode,
  inputs_schema: [
    { key: 'oauth', type: 'integration', integration: 'intercom', label: 'Intercom account', secret: false, required: false, description: INTEGRATION_NOTE },
    tokenInput('Intercom access token', 'The access token of an Intercom app (Developer Hub → Authentication).'),
    {
      key: 'region', type: 'choice', label: 'Region', secret: false, required: false, default: 'US',
      description: 'Where the Intercom workspace is hosted (PostHog reads it from the connection).',
      choices: [{ label: 'US', value: 'US' }, { label: 'Europe', value: 'Europe' }, { label: 'Australia', value: 'AU' }],
    },
    { key: 'email', type: 'string', label: 'Email of the user', secret: false, required: true, default: '{person.properties.email}' },
    { key: 'include_all_properties', type: 'boolean', label: 'Include all properties as attributes', secret: false, required: true, default: false },
    {
      key: 'properties', type: 'dictionary', label: 'Default property mapping', secret: false, required: false,
      default: { name: '{person.properties.name}', phone: '{person.properties.phone}', last_seen_at: '{toUnixTimestamp(event.timestamp)}' },
    },
    { key: 'customProperties', type: 'dictionary', label: 'Custom property mapping', secret: false, required: false, default: {} },
  ],
  filters: { events: [{ id: '$identify', name: '$identify', type: 'events', order: 0 }, { id: '$set', name: '$set', type: 'events', order: 1 }], actions: [], filter_test_accounts: true },
  masking: null,
  mapping_templates: null,
};

const zendeskCode = `if (empty(inputs.email) or empty(inputs.name)) {
  print('The email or name input is empty: no user was sent')
  return
}

let fields := {}
for (let key, value in inputs.attributes) {
  if (not empty(value) and key != 'email' and key != 'name') {
    fields[key] := value
  }
}

let res := fetch(f'https://{inputs.subdomain}.zendesk.com/api/v2/users/create_or_update', {
  'method': 'POST',
  'headers': {
    'Authorization': f'Basic {base64Encode(f'{inputs.admin_email}/token:{inputs.token}')}',
    'Content-Type': 'application/json'
  },
  'body': {'user': {'email': inputs.email, 'name': inputs.name, 'skip_verify_email': true, 'user_fields': fields}}
})
if (res.status >= 400) {
  throw Error(f'Zendesk did not take the user: {res.status}: {res.body}')
}
`;

export const zendeskTemplate: HogFunctionTemplate = {
  id: 'template-zendesk',
  name: 'Zendesk',
  description: 'Creates or updates a user in Zendesk',
  type: 'destination',
  status: 'beta',
  free: false,
  category: ['Customer Success'],
  icon_url: '/static/services/zendesk.png',
  code: zendeskCode,
  inputs_schema: [
    { key: 'subdomain', type: 'string', label: 'Zendesk subdomain', description: 'The mycompany of mycompany.zendesk.com', secret: false, required: true },
    { key: 'admin_email', type: 'string', label: 'API user email', secret: true, required: true },
    { key: 'token', type: 'string', label: 'API token', secret: true, required: true },
    { key: 'email', type: 'string', label: 'User email', secret: false, required: true, default: '{person.properties.email}' },
    { key: 'name', type: 'string', label: 'User name', secret: false, required: true, default: '{person.properties.name}' },
    { key: 'attributes', type: 'dictionary', label: 'Attribute mapping', secret: false, required: false, default: { phone: '{person.properties.phone}', plan: '{person.properties.plan}' } },
  ],
  filters: { events: [{ id: '$identify', name: '$identify', type: 'events', order: 0 }, { id: '$set', name: '$set', type: 'events', order: 1 }], actions: [], filter_test_accounts: true },
  masking: null,
  mapping_templates: null,
};
