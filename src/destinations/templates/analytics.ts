// Product analytics tools that take events over HTTP: Amplitude (HTTP V2 API), Mixpanel
// (the /import API), RudderStack (its HTTP API's batch call) and June (its Segment-shaped
// SDK API). RudderStack and June use PostHog's ids and input names; PostHog runs Amplitude
// and Mixpanel through Segment's action destinations (`segment-actions-amplitude`,
// `segment-actions-mixpanel`, JavaScript this server does not run), so those two are
// hedgerow's own Hog with ids of their own.
import type { HogFunctionTemplate } from './types.js';

const amplitudeCode = `let item := {
  'event_type': event.event,
  'time': toUnixTimestampMilli(event.timestamp),
  'insert_id': event.uuid,
  'event_properties': inputs.event_properties ?? {},
  'user_properties': inputs.user_properties ?? {}
}
if (not empty(inputs.user_id)) {
  item.user_id := inputs.user_id
}
if (not empty(inputs.device_id)) {
  item.device_id := inputs.device_id
}
if (empty(item.user_id) and empty(item.device_id)) {
  print('Neither a user id nor a device id: Amplitude needs one')
  return
}
if (not empty(event.properties.$ip)) {
  item.ip := event.properties.$ip
}
let res := fetch(f'https://{inputs.region == 'eu' ? 'api.eu.amplitude.com' : 'api2.amplitude.com'}/2/httpapi', {
  'method': 'POST',
  'headers': {'Content-Type': 'application/json', 'Accept': '*/*'},
  'body': {'api_key': inputs.api_key, 'events': [item]}
})
if (res.status >= 400) {
  throw Error(f'Amplitude did not take the event: {res.status}: {res.body}')
}
`;

export const amplitudeTemplate: HogFunctionTemplate = {
  id: 'template-amplitude',
  name: 'Amplitude',
  description: 'Sends events to Amplitude (HTTP V2 API)',
  type: 'destination',
  status: 'beta',
  free: false,
  category: ['Analytics'],
  icon_url: '/static/services/amplitude.png',
  code: amplitudeCode,
  inputs_schema: [
    { key: 'api_key', type: 'string', label: 'Amplitude API key', secret: true, required: true },
    { key: 'region', type: 'choice', label: 'Data region', secret: false, required: true, default: 'us', choices: [{ label: 'US', value: 'us' }, { label: 'EU', value: 'eu' }] },
    { key: 'user_id', type: 'string', label: 'User ID', secret: false, required: false, default: '{person.properties.email ?? event.distinct_id}' },
    { key: 'device_id', type: 'string', label: 'Device ID', secret: false, required: false, default: '{event.properties.$device_id}' },
    { key: 'event_properties', type: 'dictionary', label: 'Event properties', secret: false, required: false, default: { url: '{event.properties.$current_url}' } },
    { key: 'user_properties', type: 'dictionary', label: 'User properties', secret: false, required: false, default: { email: '{person.properties.email}' } },
  ],
  filters: null,
  masking: null,
  mapping_templates: null,
};

// /import takes events of any age, authenticated with the project's API secret (or a
// service account) as the basic-auth user; $insert_id makes a retried event count once.
const mixpanelCode = `let properties := {
  'time': toUnixTimestampMilli(event.timestamp),
  'distinct_id': inputs.distinct_id,
  '$insert_id': replaceAll(event.uuid, '-', '')
}
if (inputs.include_all_properties) {
  for (let key, value in event.properties) {
    if (not key like '$%') {
      properties[key] := value
    }
  }
}
for (let key, value in inputs.properties) {
  if (value != null) {
    properties[key] := value
  }
}
let host := inputs.region == 'eu' ? 'api-eu.mixpanel.com' : 'api.mixpanel.com'
let res := fetch(f'https://{host}/import?strict=1&project_id={encodeURLComponent(inputs.project_id)}', {
  'method': 'POST',
  'headers': {'Authorization': f'Basic {base64Encode(f'{inputs.api_secret}:')}', 'Content-Type': 'application/json'},
  'body': [{'event': event.event, 'properties': properties}]
})
if (res.status >= 400) {
  throw Error(f'Mixpanel did not take the event: {res.status}: {res.body}')
}
`;

export const mixpanelTemplate: HogFunctionTemplate = {
  id: 'template-mixpanel',
  name: 'Mixpanel',
  description: 'Sends events to Mixpanel (the /import API)',
  type: 'destination',
  status: 'beta',
  free: false,
  category: ['Analytics'],
  icon_url: '/static/services/mixpanel.png',
  code: mixpanelCode,
  inputs_schema: [
    { key: 'project_id', type: 'string', label: 'Project ID', secret: false, required: true },
    { key: 'api_secret', type: 'string', label: 'Project API secret', secret: true, required: true },
    { key: 'region', type: 'choice', label: 'Data residency', secret: false, required: true, default: 'us', choices: [{ label: 'US', value: 'us' }, { label: 'EU', value: 'eu' }] },
    { key: 'distinct_id', type: 'string', label: 'Distinct ID', secret: false, required: true, default: '{event.distinct_id}' },
    { key: 'include_all_properties', type: 'boolean', label: 'Include all event properties', secret: false, required: true, default: true },
    { key: 'properties', type: 'dictionary', label: 'Property mapping', secret: false, required: false, default: { $current_url: '{event.properties.$current_url}', $os: '{event.properties.$os}', $browser: '{event.properties.$browser}' } },
  ],
  filters: null,
  masking: null,
  mapping_templates: null,
};

// One call per event in a batch: $identify/$set are identify calls (traits from $set),
// $create_alias alias calls, $pageview page calls, anything else track calls.
const rudderstackCode = `let props := event.properties
let message := {
  'channel': 's2s',
  'messageId': event.uuid,
  'originalTimestamp': event.timestamp,
  'context': {'library': {'name': 'hedgerow'}, 'ip': props.$ip, 'userAgent': props.$raw_user_agent,
    'page': {'url': props.$current_url, 'path': props.$pathname, 'referrer': props.$referrer, 'host': props.$host},
    'os': {'name': props.$os}, 'screen': {'width': props.$screen_width, 'height': props.$screen_height}},
  'properties': {}
}
if (not empty(inputs.identifier)) {
  message.userId := inputs.identifier
}
let anonymous := props.$anon_distinct_id ?? props.$device_id
if (not empty(anonymous)) {
  message.anonymousId := anonymous
}
if (event.event in ('$identify', '$set')) {
  message.type := 'identify'
  message.traits := props.$set ?? {}
} else if (event.event == '$create_alias') {
  message.type := 'alias'
  message.previousId := event.distinct_id
  message.userId := props.alias
} else if (event.event == '$pageview') {
  message.type := 'page'
  message.name := props.title
} else {
  message.type := 'track'
  message.event := event.event == '$autocapture' ? props.$event_type ?? event.event : event.event
}
for (let key, value in props) {
  if (value != null and not key like '$%') {
    message.properties[key] := value
  }
}
let host := replaceAll(inputs.host, '/v1/batch', '')
let res := fetch(f'{host}/v1/batch', {
  'method': 'POST',
  'headers': {'Authorization': f'Basic {base64Encode(f'{inputs.token}:')}', 'Content-Type': 'application/json'},
  'body': {'batch': [message], 'sentAt': formatDateTime(now(), '%Y-%m-%dT%H:%i:%SZ', 'UTC')}
})
if (res.status >= 400) {
  throw Error(f'RudderStack did not take the event: {res.status}: {res.body}')
}
`;

export const rudderstackTemplate: HogFunctionTemplate = {
  id: 'template-rudderstack',
  name: 'RudderStack',
  description: 'Sends events to RudderStack as track, page, identify and alias calls',
  type: 'destination',
  status: 'beta',
  free: false,
  category: ['Custom'],
  icon_url: '/static/services/rudderstack.png',
  code: rudderstackCode,
  inputs_schema: [
    { key: 'host', type: 'string', label: 'Rudderstack host', description: 'The data plane URL', secret: false, required: true, default: 'https://hosted.rudderlabs.com' },
    { key: 'token', type: 'string', label: 'Write API key', secret: true, required: true },
    { key: 'identifier', type: 'string', label: 'Identifier', secret: false, required: true, default: '{person.id}' },
  ],
  filters: null,
  masking: null,
  mapping_templates: null,
};

const juneCode = `let kind := 'track'
if (event.event in ('$identify', '$set')) {
  kind := 'identify'
} else if (event.event in ('$pageview', '$screen')) {
  kind := 'page'
}
let props := event.properties
let traits := {}
if (inputs.include_all_properties) {
  for (let key, value in (kind == 'identify' ? person.properties : props)) {
    if (not empty(value) and not key like '$%') {
      traits[key] := value
    }
  }
}
for (let key, value in inputs.properties) {
  if (not empty(value)) {
    traits[key] := value
  }
}
let body := {
  'messageId': event.uuid,
  'timestamp': event.timestamp,
  'traits': traits,
  'properties': {'url': props.$current_url, 'path': props.$pathname, 'referrer': props.$referrer, 'title': props.title},
  'context': {'ip': props.$ip, 'userAgent': props.$raw_user_agent, 'locale': props.$browser_language,
    'campaign': {'name': props.utm_campaign, 'source': props.utm_source, 'medium': props.utm_medium}}
}
if (kind == 'track') {
  body.event := event.event
}
if (props.$is_identified) {
  body.userId := event.distinct_id
} else {
  body.anonymousId := event.distinct_id
}
let res := fetch(f'https://api.june.so/sdk/{kind}', {
  'method': 'POST',
  'headers': {'Authorization': f'Basic {inputs.apiKey}', 'Content-Type': 'application/json'},
  'body': body
})
if (res.status >= 400) {
  throw Error(f'June did not take the {kind} call: {res.status}: {res.body}')
}
`;

export const juneTemplate: HogFunctionTemplate = {
  id: 'template-june',
  name: 'June.so',
  description: 'Sends events to June as track, page and identify calls',
  type: 'destination',
  status: 'stable',
  free: false,
  category: ['Analytics'],
  icon_url: '/static/services/june.png',
  code: juneCode,
  inputs_schema: [
    { key: 'apiKey', type: 'string', label: 'June.so Write API key', secret: true, required: true },
    { key: 'include_all_properties', type: 'boolean', label: 'Include all properties as attributes', secret: false, required: true, default: false },
    { key: 'properties', type: 'dictionary', label: 'Trait mapping', secret: false, required: false, default: { email: '{person.properties.email}', name: '{person.properties.name}', phone: '{person.properties.phone}' } },
  ],
  filters: { events: [], actions: [], filter_test_accounts: false },
  masking: null,
  mapping_templates: null,
};
