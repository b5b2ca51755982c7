// Customer messaging and email marketing: Customer.io, Braze, Mailchimp, SendGrid, Mailjet,
// Loops and Klaviyo. PostHog's ids and input names; each request is the service's own API
// format (Customer.io Track API v2 entity, Braze /users/track, Mailchimp Marketing 3.0
// list members, SendGrid Marketing contacts, Mailjet REST v3 contacts, Loops v1, Klaviyo's
// JSON:API profile-import and events).
import type { HogFunctionTemplate } from './types.js';

const identifyFilters = {
  events: [{ id: '$identify', name: '$identify', type: 'events', order: 0 }, { id: '$set', name: '$set', type: 'events', order: 1 }],
  actions: [], filter_test_accounts: true,
};
const apiKey = (key: string, label: string) => ({ key, type: 'string', label, secret: true, required: true });
const emailInput = { key: 'email', type: 'string', label: 'Email of the user', secret: false, required: true, default: '{person.properties.email}' };
const allProperties = (label: string) => ({ key: 'include_all_properties', type: 'boolean', label, secret: false, required: true, default: false });

// `automatic` turns $identify/$set into identify, $pageview into page and $screen into
// screen calls; any other event is an event call. Attribute values are cut to 1,000
// characters, Customer.io's limit.
const customerioCode = `if (empty(inputs.identifier_key) or empty(inputs.identifier_value)) {
  print('No identifier: nothing to send')
  return
}

let action := inputs.action
let name := event.event
if (action == 'automatic') {
  if (event.event in ('$identify', '$set')) {
    action := 'identify'
    name := null
  } else if (event.event == '$pageview') {
    action := 'page'
    name := event.properties.$current_url
  } else if (event.event == '$screen') {
    action := 'screen'
    name := event.properties.$screen_name
  } else {
    action := 'event'
  }
}

let attributes := {}
if (inputs.include_all_properties) {
  attributes := action == 'identify' ? person.properties : event.properties
}
for (let key, value in inputs.attributes) {
  attributes[key] := value
}
for (let key, value in attributes) {
  if (typeof(value) == 'string') {
    if (length(value) > 1000) {
      attributes[key] := substring(value, 1, 1000)
    }
  }
}

let res := fetch(f'https://{inputs.host}/api/v2/entity', {
  'method': 'POST',
  'headers': {
    'Authorization': f'Basic {base64Encode(f'{inputs.site_id}:{inputs.token}')}',
    'Content-Type': 'application/json'
  },
  'body': {
    'type': 'person',
    'action': action,
    'name': name,
    'identifiers': {inputs.identifier_key: inputs.identifier_value},
    'attributes': attributes,
    'timestamp': toInt(toUnixTimestamp(toDateTime(event.timestamp)))
  }
})
if (res.status >= 400) {
  throw Error(f'Customer.io did not take the {action}: {res.status}: {res.body}')
}
`;

export const customerioTemplate: HogFunctionTemplate = {
  id: 'template-customerio',
  name: 'Customer.io',
  description: 'Identifies people and tracks their events and page views in Customer.io',
  type: 'destination',
  status: 'stable',
  free: false,
  category: ['Email Marketing'],
  icon_url: '/static/services/customerio.png',
  code: customerioCode,
  inputs_schema: [
    { key: 'site_id', type: 'string', label: 'Customer.io site ID', secret: false, required: true },
    apiKey('token', 'Customer.io API Key'),
    {
      key: 'host', type: 'choice', label: 'Customer.io region', secret: false, required: true, default: 'track.customer.io',
      choices: [{ label: 'US (track.customer.io)', value: 'track.customer.io' }, { label: 'EU (track-eu.customer.io)', value: 'track-eu.customer.io' }],
    },
    {
      key: 'identifier_key', type: 'choice', label: 'Identifier key', secret: false, required: true, default: 'email',
      choices: [{ label: 'Email', value: 'email' }, { label: 'ID', value: 'id' }, { label: 'Customer.io ID', value: 'cio_id' }],
    },
    { key: 'identifier_value', type: 'string', label: 'Identifier value', secret: false, required: true, default: '{person.properties.email}' },
    {
      key: 'action', type: 'choice', label: 'Action', secret: false, required: true, default: 'automatic',
      choices: ['automatic', 'identify', 'event', 'page', 'screen', 'delete'].map((v) => ({ label: v[0].toUpperCase() + v.slice(1), value: v })),
    },
    allProperties('Include all properties as attributes'),
    {
      key: 'attributes', type: 'dictionary', label: 'Attribute mapping', secret: false, required: false,
      default: { email: '{person.properties.email}', lastname: '{person.properties.lastname}', firstname: '{person.properties.firstname}' },
    },
  ],
  filters: { events: [{ id: '$identify', name: '$identify', type: 'events', order: 0 }, { id: '$pageview', name: '$pageview', type: 'events', order: 0 }], actions: [], filter_test_accounts: true },
  masking: null,
  mapping_templates: null,
};

const brazeCode = `let res := fetch(f'{inputs.brazeEndpoint}/users/track', {
  'method': 'POST',
  'headers': {'Authorization': f'Bearer {inputs.apiKey}', 'Content-Type': 'application/json'},
  'body': {'attributes': [inputs.attributes], 'events': [inputs.event]}
})
if (res.status < 200 or res.status >= 300) {
  throw Error(f'Braze did not take the event: {res.status}: {res.body}')
}
`;

const brazeClusters = [
  ['US-01', 'iad-01', 'com'], ['US-02', 'iad-02', 'com'], ['US-03', 'iad-03', 'com'], ['US-04', 'iad-04', 'com'], ['US-05', 'iad-05', 'com'],
  ['US-06', 'iad-06', 'com'], ['US-07', 'iad-07', 'com'], ['US-08', 'iad-08', 'com'], ['US-10', 'iad-10', 'com'], ['EU-01', 'fra-01', 'eu'],
  ['EU-02', 'fra-02', 'eu'], ['AU-01', 'au-01', 'com'],
];

export const brazeTemplate: HogFunctionTemplate = {
  id: 'template-braze',
  name: 'Braze',
  description: 'Sends user attributes and events to Braze (/users/track)',
  type: 'destination',
  status: 'beta',
  free: false,
  category: ['Customer Success'],
  icon_url: '/static/services/braze.png',
  code: brazeCode,
  inputs_schema: [
    {
      key: 'brazeEndpoint', type: 'choice', label: 'Braze REST Endpoint', secret: false, required: true, default: '',
      choices: brazeClusters.map(([label, cluster, tld]) => ({ label, value: `https://rest.${cluster}.braze.${tld}` })),
    },
    { ...apiKey('apiKey', 'Your Braze API Key'), default: '' },
    { key: 'attributes', type: 'json', label: 'Attributes to set', secret: false, required: true, default: { email: '{person.properties.email}' } },
    {
      key: 'event', type: 'json', label: 'Event payload', secret: false, required: true,
      default: { properties: '{event.properties}', external_id: '{event.distinct_id}', name: '{event.event}', time: '{event.timestamp}' },
    },
  ],
  filters: null,
  masking: null,
  mapping_templates: null,
};

// A list member's id is the MD5 of its lowercased email; PUT adds or updates it.
const mailchimpCode = `if (empty(inputs.email)) {
  print('No email: nothing to send')
  return
}

let fields := {}
if (inputs.include_all_properties) {
  for (let key, value in event.properties) {
    if (not empty(value) and not key like '$%') {
      fields[key] := value
    }
  }
}
for (let key, value in inputs.properties) {
  if (not empty(value)) {
    fields[key] := value
  }
}

let res := fetch(f'https://{inputs.dataCenterId}.api.mailchimp.com/3.0/lists/{inputs.audienceId}/members/{md5Hex(lower(inputs.email))}', {
  'method': 'PUT',
  'headers': {'Authorization': f'Bearer {inputs.apiKey}', 'Content-Type': 'application/json'},
  'body': {'email_address': inputs.email, 'status_if_new': inputs.doubleOptIn ? 'pending' : 'subscribed', 'merge_fields': fields}
})
if (res.status >= 400) {
  throw Error(f'Mailchimp did not take the contact: {res.status}: {res.body}')
}
`;

export const mailchimpTemplate: HogFunctionTemplate = {
  id: 'template-mailchimp',
  name: 'Mailchimp',
  description: 'Adds or updates a contact in a Mailchimp audience',
  type: 'destination',
  status: 'beta',
  free: false,
  category: ['Email Marketing'],
  icon_url: '/static/services/mailchimp.png',
  code: mailchimpCode,
  inputs_schema: [
    apiKey('apiKey', 'Mailchimp API Key'),
    { key: 'audienceId', type: 'string', label: 'Mailchimp audience ID', secret: false, required: true },
    { key: 'dataCenterId', type: 'string', label: 'Mailchimp data center ID', description: 'The us1 of https://us1.admin.mailchimp.com', secret: false, required: true },
    emailInput,
    { key: 'doubleOptIn', type: 'boolean', label: 'Enable double opt-in', secret: false, required: true, default: false },
    allProperties('Include all event properties'),
    {
      key: 'properties', type: 'dictionary', label: 'Merge field', secret: false, required: false,
      default: { FNAME: '{person.properties.firstname}', LNAME: '{person.properties.lastname}', COMPANY: '{person.properties.company}' },
    },
  ],
  filters: identifyFilters,
  masking: null,
  mapping_templates: null,
};

// Custom fields are sent by their ids, so with any set their definitions are read first.
const sendgridCode = `if (empty(inputs.email)) {
  print('No email: nothing to send')
  return
}

let headers := {'Authorization': f'Bearer {inputs.api_key}', 'Content-Type': 'application/json'}
let contact := {'email': inputs.email}
for (let key, value in inputs.properties) {
  if (not empty(value)) {
    contact[key] := value
  }
}

if (not empty(inputs.custom_fields)) {
  let defs := fetch('https://api.sendgrid.com/v3/marketing/field_definitions', {'method': 'GET', 'headers': headers})
  if (defs.status != 200) {
    throw Error(f'SendGrid did not list the custom fields: {defs.status}: {defs.body}')
  }
  contact.custom_fields := {}
  for (let field in defs.body.custom_fields ?? []) {
    let value := inputs.custom_fields[field.name]
    if (not empty(value)) {
      contact.custom_fields[field.id] := value
    }
  }
}

let res := fetch('https://api.sendgrid.com/v3/marketing/contacts', {'method': 'PUT', 'headers': headers, 'body': {'contacts': [contact]}})
if (res.status >= 300) {
  throw Error(f'SendGrid did not take the contact: {res.status}: {res.body}')
}
`;

export const sendgridTemplate: HogFunctionTemplate = {
  id: 'template-sendgrid',
  name: 'Sendgrid',
  description: 'Adds or updates a marketing contact in SendGrid',
  type: 'destination',
  status: 'beta',
  free: false,
  category: ['Email Marketing'],
  icon_url: '/static/services/sendgrid.png',
  code: sendgridCode,
  inputs_schema: [
    apiKey('api_key', 'Sendgrid API Key'),
    { ...emailInput, label: 'The email of the user' },
    {
      key: 'properties', type: 'dictionary', label: 'Reserved fields', secret: false, required: true,
      default: {
        first_name: '{person.properties.first_name}', last_name: '{person.properties.last_name}', city: '{person.properties.city}',
        country: '{person.properties.country}', postal_code: '{person.properties.postal_code}',
      },
    },
    { key: 'custom_fields', type: 'dictionary', label: 'Custom fields', description: 'By field name; they must exist in SendGrid.', secret: false, required: false, default: {} },
  ],
  filters: { events: [{ id: '$identify', name: '$identify', type: 'events', order: 0 }], actions: [], filter_test_accounts: true },
  masking: null,
  mapping_templates: null,
};

const mailjetAuth = "concat('Basic ', base64Encode(concat(inputs.api_key, ':', inputs.secret_key)))";
const mailjetInputs = [apiKey('api_key', 'Mailjet API Key'), apiKey('secret_key', 'Mailjet Secret Key'), emailInput];

const mailjetContactCode = `if (empty(inputs.email)) {
  return false
}
let res := fetch('https://api.mailjet.com/v3/REST/contact', {
  'method': 'POST',
  'headers': {'Authorization': ${mailjetAuth}, 'Content-Type': 'application/json'},
  'body': {'Email': inputs.email, 'Name': inputs.name, 'IsExcludedFromCampaigns': inputs.is_excluded_from_campaigns ?? false}
})
// 400 "already exists" is what Mailjet answers for a contact it has.
if (res.status >= 400) {
  if (res.status != 400 or not (jsonStringify(res.body) like '%already exists%')) {
    throw Error(f'Mailjet did not take the contact: {res.status}: {res.body}')
  }
}
`;

export const mailjetContactTemplate: HogFunctionTemplate = {
  id: 'template-mailjet-create-contact',
  name: 'Mailjet',
  description: 'Adds a contact to Mailjet',
  type: 'destination',
  status: 'beta',
  free: false,
  category: ['Email Marketing'],
  icon_url: '/static/services/mailjet.png',
  code: mailjetContactCode,
  inputs_schema: [
    ...mailjetInputs,
    { key: 'name', type: 'string', label: 'Name', secret: false, required: false, default: '{person.properties.first_name} {person.properties.last_name}' },
    { key: 'is_excluded_from_campaigns', type: 'boolean', label: 'Is excluded from campaigns', secret: false, required: false, default: false },
  ],
  filters: { events: [{ id: '$identify', name: '$identify', type: 'events', order: 0 }], actions: [], filter_test_accounts: true },
  masking: null,
  mapping_templates: null,
};

const mailjetListCode = `if (empty(inputs.email)) {
  return false
}
let res := fetch(f'https://api.mailjet.com/v3/REST/contact/{encodeURLComponent(inputs.email)}/managecontactslists', {
  'method': 'POST',
  'headers': {'Authorization': ${mailjetAuth}, 'Content-Type': 'application/json'},
  'body': {'ContactsLists': [{'Action': inputs.action, 'ListID': inputs.contact_list_id}]}
})
if (res.status >= 400) {
  throw Error(f'Mailjet did not update the list: {res.status}: {res.body}')
}
`;

export const mailjetListTemplate: HogFunctionTemplate = {
  id: 'template-mailjet-update-contact-list',
  name: 'Mailjet',
  description: 'Adds a contact to, or removes it from, a Mailjet contact list',
  type: 'destination',
  status: 'beta',
  free: false,
  category: ['Email Marketing'],
  icon_url: '/static/services/mailjet.png',
  code: mailjetListCode,
  inputs_schema: [
    ...mailjetInputs,
    { key: 'contact_list_id', type: 'string', label: 'Contact list ID', secret: false, required: true },
    {
      key: 'action', type: 'choice', label: 'Action', secret: false, required: true, default: 'addnoforce',
      choices: [['Add', 'addnoforce'], ['Add (force)', 'addforce'], ['Remove', 'remove'], ['Unsubscribe', 'unsub']].map(([label, value]) => ({ label, value })),
    },
  ],
  filters: { events: [{ id: '$identify', name: '$identify', type: 'events', order: 0 }], actions: [], filter_test_accounts: true },
  masking: null,
  mapping_templates: null,
};

const loopsHeaders = "{'Authorization': f'Bearer {inputs.apiKey}', 'Content-Type': 'application/json'}";

const loopsContactCode = `if (empty(inputs.email)) {
  print('No email: nothing to send')
  return
}
let contact := {'email': inputs.email, 'userId': person.id}
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
let res := fetch('https://app.loops.so/api/v1/contacts/update', {'method': 'PUT', 'headers': ${loopsHeaders}, 'body': contact})
if (res.status >= 400) {
  throw Error(f'Loops did not take the contact: {res.status}: {res.body}')
}
`;

export const loopsTemplate: HogFunctionTemplate = {
  id: 'template-loops',
  name: 'Loops',
  description: 'Creates or updates a contact in Loops',
  type: 'destination',
  status: 'stable',
  free: false,
  category: ['Email Marketing'],
  icon_url: '/static/services/loops.png',
  code: loopsContactCode,
  inputs_schema: [
    { ...apiKey('apiKey', 'Loops API Key'), default: '' },
    emailInput,
    allProperties('Include all properties as attributes'),
    { key: 'properties', type: 'dictionary', label: 'Property mapping', secret: false, required: false, default: { firstName: '{person.properties.firstname}', lastName: '{person.properties.lastname}' } },
  ],
  filters: identifyFilters,
  masking: null,
  mapping_templates: null,
};

const loopsEventCode = `if (empty(inputs.email)) {
  print('No email: nothing to send')
  return
}
let properties := {}
if (inputs.include_all_properties) {
  for (let key, value in event.properties) {
    if (not empty(value) and not key like '$%') {
      properties[key] := value
    }
  }
}
for (let key, value in inputs.properties) {
  if (not empty(value)) {
    properties[key] := value
  }
}
let res := fetch('https://app.loops.so/api/v1/events/send', {
  'method': 'POST', 'headers': ${loopsHeaders},
  'body': {'email': inputs.email, 'userId': person.id, 'eventName': event.event, 'eventProperties': properties}
})
if (res.status >= 400) {
  throw Error(f'Loops did not take the event: {res.status}: {res.body}')
}
`;

export const loopsEventTemplate: HogFunctionTemplate = {
  id: 'template-loops-event',
  name: 'Loops',
  description: 'Sends events to Loops',
  type: 'destination',
  status: 'stable',
  free: false,
  category: ['Email Marketing'],
  icon_url: '/static/services/loops.png',
  code: loopsEventCode,
  inputs_schema: [
    { ...apiKey('apiKey', 'Loops API Key'), default: '' },
    emailInput,
    allProperties('Include all properties as attributes'),
    { key: 'properties', type: 'dictionary', label: 'Property mapping', secret: false, required: false, default: { pathname: '{event.properties.$pathname}' } },
  ],
  filters: { events: [{ id: '$pageview', name: '$pageview', type: 'events', order: 0 }], actions: [], filter_test_accounts: true },
  masking: null,
  mapping_templates: null,
};

const klaviyoHeaders = "{'Authorization': f'Klaviyo-API-Key {inputs.apiKey}', 'revision': '2024-10-15', 'Accept': 'application/vnd.api+json', 'Content-Type': 'application/vnd.api+json'}";

const klaviyoProfileCode = `if (empty(inputs.email) and empty(inputs.externalId)) {
  print('Neither email nor external ID: nothing to send')
  return
}
let attributes := {'properties': {}, 'location': {}}
let geo := {
  'latitude': '$geoip_latitude', 'longitude': '$geoip_longitude', 'city': '$geoip_city_name', 'country': '$geoip_country_name',
  'region': '$geoip_subdivision_1_name', 'zip': '$geoip_postal_code', 'timezone': '$geoip_time_zone'
}
for (let field, property in geo) {
  if (not empty(person.properties[property])) {
    attributes.location[field] := person.properties[property]
  }
}
if (not empty(inputs.email)) {
  attributes.email := inputs.email
}
if (not empty(inputs.externalId)) {
  attributes.external_id := inputs.externalId
}
if (inputs.include_all_properties) {
  for (let key, value in person.properties) {
    if (not empty(value) and not key like '$%') {
      attributes.properties[key] := value
    }
  }
}
for (let key, value in inputs.customProperties) {
  if (not empty(value)) {
    attributes.properties[key] := value
  }
}
let res := fetch('https://a.klaviyo.com/api/profile-import', {
  'method': 'POST', 'headers': ${klaviyoHeaders},
  'body': {'data': {'type': 'profile', 'attributes': attributes}}
})
if (res.status >= 400) {
  throw Error(f'Klaviyo did not take the profile: {res.status}: {res.body}')
}
`;

const klaviyoCommon = [
  apiKey('apiKey', 'Klaviyo Private API Key'),
  { ...emailInput, label: 'User Email' },
  { key: 'externalId', type: 'string', label: 'External ID', secret: false, required: true, default: '{person.id}' },
];

export const klaviyoUserTemplate: HogFunctionTemplate = {
  id: 'template-klaviyo-user',
  name: 'Klaviyo',
  description: 'Creates or updates a profile in Klaviyo',
  type: 'destination',
  status: 'stable',
  free: false,
  category: ['Email Marketing'],
  icon_url: '/static/services/klaviyo.png',
  code: klaviyoProfileCode,
  inputs_schema: [
    ...klaviyoCommon,
    allProperties('Include all person properties as custom properties'),
    {
      key: 'customProperties', type: 'dictionary', label: 'Custom properties', secret: false, required: false,
      default: { first_name: '{person.properties.firstname}', last_name: '{person.properties.lastname}', title: '{person.properties.title}', organization: '{person.properties.organization}', phone_number: '{person.properties.phone}' },
    },
  ],
  filters: identifyFilters,
  masking: null,
  mapping_templates: null,
};

const klaviyoEventCode = `if (empty(inputs.email) and empty(inputs.externalId)) {
  print('Neither email nor external ID: nothing to send')
  return
}
let profile := {}
if (not empty(inputs.email)) {
  profile.email := inputs.email
}
if (not empty(inputs.externalId)) {
  profile.external_id := inputs.externalId
}
let properties := {}
if (inputs.include_all_properties) {
  for (let key, value in event.properties) {
    if (not empty(value) and not key like '$%') {
      properties[key] := value
    }
  }
}
for (let key, value in inputs.attributes) {
  if (not empty(value)) {
    properties[key] := value
  }
}
let res := fetch('https://a.klaviyo.com/api/events', {
  'method': 'POST', 'headers': ${klaviyoHeaders},
  'body': {'data': {'type': 'event', 'attributes': {
    'properties': properties,
    'time': event.timestamp,
    'unique_id': event.uuid,
    'metric': {'data': {'type': 'metric', 'attributes': {'name': event.event}}},
    'profile': {'data': {'type': 'profile', 'attributes': profile}}
  }}}
})
if (res.status >= 400) {
  throw Error(f'Klaviyo did not take the event: {res.status}: {res.body}')
}
`;

export const klaviyoEventTemplate: HogFunctionTemplate = {
  id: 'template-klaviyo-event',
  name: 'Klaviyo',
  description: 'Sends events to Klaviyo',
  type: 'destination',
  status: 'stable',
  free: false,
  category: ['Email Marketing'],
  icon_url: '/static/services/klaviyo.png',
  code: klaviyoEventCode,
  inputs_schema: [
    ...klaviyoCommon,
    allProperties('Include all event properties as event attributes'),
    { key: 'attributes', type: 'dictionary', label: 'Attributes', secret: false, required: false, default: { price: '{event.properties.price}', currency: '{event.properties.currency}' } },
  ],
  filters: { events: [], actions: [], filter_test_accounts: true },
  masking: null,
  mapping_templates: null,
};
