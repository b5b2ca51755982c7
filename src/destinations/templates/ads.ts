// Ad platforms' server-side conversion APIs: Google Ads (uploadClickConversions), Meta
// Conversions API, LinkedIn Conversions API, Reddit Conversions API and TikTok Events
// API. PostHog's ids, input names and mapping templates (which events become which
// conversion); each request follows the platform's documented format. User data that the
// platforms want hashed is hashed with SHA-256 in the input templates.
import type { InputSchemaItem } from '../../hog/index.js';
import type { HogFunctionTemplate, MappingTemplate } from './types.js';
import { INTEGRATION_NOTE } from './integration.js';

// A mapping per (name, event, the platform's event name under `key`), with `extra` inputs.
function mappings(key: string, rows: [string, string, string][], extra: InputSchemaItem[]): MappingTemplate[] {
  return rows.map(([name, event, platformName]) => ({
    name,
    include_by_default: true,
    filters: { events: [{ id: event, name: event, type: 'events', order: 0 }] },
    inputs: null,
    inputs_schema: [{ key, type: 'string', label: 'Event name', secret: false, required: true, default: platformName }, ...extra],
  }));
}

const value = '{toFloat(event.properties.value ?? event.properties.revenue ?? event.properties.price)}';

// Google Ads: customerId is "customer id/login customer id" as PostHog's connection field gives it.
const googleCode = `let token := inputs.access_token
if (empty(token)) {
  throw Error('No Google Ads token: set the access_token input (Google connections are not available here)')
}
let ids := splitByString('/', replaceAll(inputs.customerId, '-', ''))
let customer := ids[1]

let conversion := {
  'conversionAction': f'customers/{customer}/conversionActions/{inputs.conversionActionId}',
  'conversionDateTime': inputs.conversionDateTime
}
let identifiers := []
if (not empty(inputs.email)) {
  identifiers := arrayPushBack(identifiers, {'hashedEmail': sha256Hex(lower(trim(inputs.email)))})
}
if (not empty(inputs.phone)) {
  identifiers := arrayPushBack(identifiers, {'hashedPhoneNumber': sha256Hex(trim(inputs.phone))})
}
if (not empty(inputs.gclid)) {
  conversion.gclid := inputs.gclid
} else if (not empty(inputs.gbraid)) {
  conversion.gbraid := inputs.gbraid
} else if (not empty(inputs.wbraid)) {
  conversion.wbraid := inputs.wbraid
} else if (empty(identifiers)) {
  print('No click id and no email or phone: nothing to attribute the conversion to')
  return
}
if (not empty(identifiers)) {
  conversion.userIdentifiers := identifiers
}
if (not empty(inputs.conversionValue)) {
  conversion.conversionValue := toFloat(inputs.conversionValue)
}
if (not empty(inputs.currencyCode)) {
  conversion.currencyCode := inputs.currencyCode
}
if (not empty(inputs.orderId)) {
  conversion.orderId := inputs.orderId
}

let headers := {'Authorization': f'Bearer {token}', 'Content-Type': 'application/json'}
if (not empty(inputs.developer_token)) {
  headers['developer-token'] := inputs.developer_token
}
if (not empty(ids[2])) {
  headers['login-customer-id'] := ids[2]
}
let res := fetch(f'https://googleads.googleapis.com/v18/customers/{customer}:uploadClickConversions', {
  'method': 'POST', 'headers': headers, 'body': {'conversions': [conversion], 'partialFailure': true}
})
if (res.status >= 400) {
  throw Error(f'Google Ads did not take the conversion: {res.status}: {res.body}')
}
if (not empty(res.body.partialFailureError)) {
  throw Error(f'Google Ads refused the conversion: {res.body.partialFailureError.message}')
}
`;

const googleMappingInputs: InputSchemaItem[] = [
  { key: 'conversionActionId', type: 'integration_field', integration_key: 'oauth', integration_field: 'google_ads_conversion_action', requires_field: 'customerId', label: 'Conversion action', secret: false, required: true },
  { key: 'gclid', type: 'string', label: 'Google Click ID (gclid)', secret: false, required: false, default: '{person.properties.gclid ?? person.properties.$initial_gclid}' },
  { key: 'gbraid', type: 'string', label: 'gbraid', secret: false, required: false, default: '{person.properties.gbraid ?? person.properties.$initial_gbraid}' },
  { key: 'wbraid', type: 'string', label: 'wbraid', secret: false, required: false, default: '{person.properties.wbraid ?? person.properties.$initial_wbraid}' },
  { key: 'conversionDateTime', type: 'string', label: 'Conversion Date Time', secret: false, required: true, default: "{formatDateTime(toDateTime(event.timestamp), '%Y-%m-%d %H:%i:%S')}+00:00" },
  { key: 'conversionValue', type: 'string', label: 'Conversion value', secret: false, required: false, default: '' },
  { key: 'currencyCode', type: 'string', label: 'Currency code', secret: false, required: false, default: '' },
  { key: 'orderId', type: 'string', label: 'Order ID', secret: false, required: false, default: '' },
  { key: 'email', type: 'string', label: 'Email address', secret: false, required: false, default: '{person.properties.email}' },
  { key: 'phone', type: 'string', label: 'Phone number', secret: false, required: false, default: '' },
];

export const googleAdsTemplate: HogFunctionTemplate = {
  id: 'template-google-ads',
  name: 'Google Ads Conversions',
  description: 'Uploads click conversions to Google Ads',
  type: 'destination',
  status: 'alpha',
  free: false,
  category: ['Advertisement'],
  icon_url: '/static/services/google-ads.png',
  code: googleCode,
  inputs_schema: [
    { key: 'oauth', type: 'integration', integration: 'google-ads', label: 'Google Ads account', secret: false, required: false, description: INTEGRATION_NOTE },
    { key: 'access_token', type: 'string', label: 'OAuth access token', description: 'With the adwords scope.', secret: true, required: false },
    { key: 'developer_token', type: 'string', label: 'Developer token', description: 'The Google Ads API developer token of your manager account.', secret: true, required: false },
    { key: 'customerId', type: 'integration_field', integration_key: 'oauth', integration_field: 'google_ads_customer_id', label: 'Customer ID', description: 'XXX-XXX-XXXX, optionally /login customer id', secret: false, required: true },
  ],
  filters: null,
  masking: null,
  mapping_templates: [{ name: 'Conversion', include_by_default: true, filters: { events: [] }, inputs: null, inputs_schema: googleMappingInputs }],
};

// Values that arrive as JSON array text (a product list rendered into a string) are sent as arrays.
const metaCode = `if (empty(inputs.pixelId) or empty(inputs.accessToken)) {
  throw Error('The pixel ID and the access token are required')
}
// (Hog's and evaluates both sides: the type is tested first, apart.)
fun plain(v) {
  if (typeof(v) != 'string') {
    return v
  }
  if (startsWith(trim(v), '[')) {
    try {
      return jsonParse(v)
    } catch {
      return v
    }
  }
  return v
}
let userData := {}
for (let key, v in inputs.userData) {
  if (not empty(v)) {
    userData[key] := plain(v)
  }
}
let customData := {}
for (let key, v in inputs.customData) {
  if (not empty(v)) {
    customData[key] := plain(v)
  }
}
let item := {
  'event_name': inputs.eventName, 'event_time': toInt(inputs.eventTime), 'event_id': inputs.eventId,
  'action_source': inputs.actionSource, 'user_data': userData, 'custom_data': customData
}
if (not empty(inputs.eventSourceUrl)) {
  item.event_source_url := inputs.eventSourceUrl
}
let body := {'data': [item], 'access_token': inputs.accessToken}
if (not empty(inputs.testEventCode)) {
  body.test_event_code := inputs.testEventCode
}
let res := fetch(f'https://graph.facebook.com/v21.0/{inputs.pixelId}/events', {
  'method': 'POST', 'headers': {'Content-Type': 'application/json'}, 'body': body
})
if (res.status >= 400) {
  throw Error(f'Meta did not take the event: {res.status}: {res.body}')
}
`;

const metaCustom = (fields: Record<string, string>): InputSchemaItem => ({ key: 'customData', type: 'dictionary', label: 'Custom data', secret: false, required: true, default: fields });
const metaMoney = { currency: "{event.properties.currency ?? 'USD'}", value };
const metaRows: [string, string, string, Record<string, string>][] = [
  ['Page Viewed', '$pageview', 'PageView', {}],
  ['Product Viewed', 'Product Viewed', 'ViewContent', { ...metaMoney, content_type: 'product', content_ids: '{[event.properties.sku ?? event.properties.product_id]}' }],
  ['Products Searched', 'Products Searched', 'Search', { search_string: '{event.properties.query}' }],
  ['Product Added', 'Product Added', 'AddToCart', { ...metaMoney, content_type: 'product', content_ids: '{[event.properties.sku ?? event.properties.product_id]}' }],
  ['Checkout Started', 'Checkout Started', 'InitiateCheckout', { ...metaMoney, content_ids: '{arrayMap(x -> x.sku ?? x.product_id, event.properties.products ?? [])}' }],
  ['Order Completed', 'Order Completed', 'Purchase', { ...metaMoney, order_id: '{event.properties.order_id}', content_ids: '{arrayMap(x -> x.sku ?? x.product_id, event.properties.products ?? [])}' }],
  ['Lead Generated', 'Lead Generated', 'Lead', metaMoney],
  ['Signed Up', 'Signed Up', 'CompleteRegistration', metaMoney],
];

export const metaAdsTemplate: HogFunctionTemplate = {
  id: 'template-meta-ads',
  name: 'Meta Ads Conversions',
  description: 'Sends conversion events to Meta\'s Conversions API',
  type: 'destination',
  status: 'alpha',
  free: false,
  category: ['Advertisement'],
  icon_url: '/static/services/meta-ads.png',
  code: metaCode,
  inputs_schema: [
    { key: 'accessToken', type: 'string', label: 'Access token', secret: true, required: true },
    { key: 'pixelId', type: 'string', label: 'Pixel ID', secret: false, required: true },
    { key: 'eventId', type: 'string', label: 'Event ID', secret: false, required: true, default: '{event.uuid}' },
    { key: 'eventSourceUrl', type: 'string', label: 'Event source URL', secret: false, required: false, default: '{event.properties.$current_url}' },
    { key: 'eventTime', type: 'string', label: 'Event time', secret: false, required: true, default: '{toInt(toUnixTimestamp(event.timestamp))}' },
    {
      key: 'actionSource', type: 'choice', label: 'Action source', secret: false, required: true, default: 'website',
      choices: ['email', 'website', 'app', 'phone_call', 'chat', 'physical_store', 'system_generated', 'business_messaging', 'other'].map((v) => ({ label: v, value: v })),
    },
    {
      key: 'userData', type: 'dictionary', label: 'User data', secret: false, required: true,
      default: {
        em: '{sha256Hex(lower(person.properties.email))}', fn: '{sha256Hex(lower(person.properties.first_name))}',
        ln: '{sha256Hex(lower(person.properties.last_name))}', fbc: "{person.properties.fbc ?? ''}", fbp: "{person.properties.fbp ?? ''}",
        client_user_agent: '{event.properties.$raw_user_agent}',
      },
    },
    { key: 'testEventCode', type: 'string', label: 'Test Event Code', secret: false, required: false, default: '' },
  ],
  filters: null,
  masking: null,
  mapping_templates: metaRows.map(([name, event, metaName, custom]) => mappings('eventName', [[name, event, metaName]], [metaCustom(custom)])[0]),
};

const linkedinCode = `let token := inputs.access_token
if (empty(token)) {
  throw Error('No LinkedIn token: set the access_token input (LinkedIn connections are not available here)')
}
let user := {'userIds': []}
for (let idType, idValue in inputs.userIds) {
  if (not empty(idValue)) {
    user.userIds := arrayPushBack(user.userIds, {'idType': idType, 'idValue': idValue})
  }
}
// LinkedIn takes userInfo only with both names in it.
let info := {}
for (let key, v in inputs.userInfo) {
  if (not empty(v)) {
    info[key] := v
  }
}
if (not empty(info.firstName) and not empty(info.lastName)) {
  user.userInfo := info
}
let body := {
  'conversion': f'urn:lla:llaPartnerConversion:{inputs.conversionRuleId}',
  'conversionHappenedAt': toInt(inputs.conversionDateTime),
  'user': user,
  'eventId': inputs.eventId
}
if (not empty(inputs.conversionValue)) {
  body.conversionValue := {'currencyCode': inputs.currencyCode ?? 'USD', 'amount': inputs.conversionValue}
}
let res := fetch('https://api.linkedin.com/rest/conversionEvents', {
  'method': 'POST',
  'headers': {
    'Authorization': f'Bearer {token}', 'Content-Type': 'application/json', 'LinkedIn-Version': '202409',
    'X-Restli-Protocol-Version': '2.0.0'
  },
  'body': body
})
if (res.status >= 400) {
  throw Error(f'LinkedIn did not take the conversion: {res.status}: {res.body}')
}
`;

export const linkedinAdsTemplate: HogFunctionTemplate = {
  id: 'template-linkedin-ads',
  name: 'LinkedIn Ads Conversions',
  description: 'Sends conversion events to LinkedIn\'s Conversions API',
  type: 'destination',
  status: 'alpha',
  free: false,
  category: ['Advertisement'],
  icon_url: '/static/services/linkedin.png',
  code: linkedinCode,
  inputs_schema: [
    { key: 'oauth', type: 'integration', integration: 'linkedin-ads', label: 'LinkedIn Ads account', secret: false, required: false, description: INTEGRATION_NOTE },
    { key: 'access_token', type: 'string', label: 'OAuth access token', description: 'With the rw_conversions scope.', secret: true, required: false },
    { key: 'accountId', type: 'integration_field', integration_key: 'oauth', integration_field: 'linkedin_ads_account_id', label: 'Account ID', secret: false, required: true },
    { key: 'conversionRuleId', type: 'integration_field', integration_key: 'oauth', integration_field: 'linkedin_ads_conversion_rule_id', requires_field: 'accountId', label: 'Conversion rule', secret: false, required: true },
    { key: 'conversionDateTime', type: 'string', label: 'Conversion Date Time', secret: false, required: true, default: '{toUnixTimestampMilli(event.timestamp)}' },
    { key: 'conversionValue', type: 'string', label: 'Conversion value', secret: false, required: false, default: '' },
    { key: 'currencyCode', type: 'string', label: 'Currency code', secret: false, required: false, default: '' },
    { key: 'eventId', type: 'string', label: 'Event ID', secret: false, required: true, default: '{event.uuid}' },
    {
      key: 'userIds', type: 'dictionary', label: 'User ids', secret: false, required: true,
      default: { SHA256_EMAIL: '{sha256Hex(lower(person.properties.email))}', LINKEDIN_FIRST_PARTY_ADS_TRACKING_UUID: '{person.properties.li_fat_id ?? person.properties.$initial_li_fat_id}' },
    },
    {
      key: 'userInfo', type: 'dictionary', label: 'User information', secret: false, required: true,
      default: { firstName: '{person.properties.first_name}', lastName: '{person.properties.last_name}', title: '{person.properties.title}', companyName: '{person.properties.company}', countryCode: '{person.properties.$geoip_country_code}' },
    },
  ],
  filters: null,
  masking: null,
  mapping_templates: null,
};

const redditCode = `if (empty(inputs.accountId) or empty(inputs.conversionsAccessToken)) {
  throw Error('The account ID and the conversion access token are required')
}
let standard := ['PageVisit', 'Search', 'AddToCart', 'AddToWishlist', 'Purchase', 'ViewContent', 'Lead', 'SignUp']
let tracking := {'tracking_type': inputs.eventType}
if (not has(standard, inputs.eventType)) {
  tracking := {'tracking_type': 'Custom', 'custom_event_name': inputs.eventType}
}
let metadata := {}
for (let key, v in inputs.eventProperties) {
  if (not empty(v)) {
    metadata[key] := v
  }
}
let user := {}
for (let key, v in inputs.userProperties) {
  if (not empty(v)) {
    user[key] := v
  }
}
let item := {'event_at': event.timestamp, 'event_type': tracking, 'user': user, 'event_metadata': metadata}
if (not empty(inputs.rdt_cid)) {
  item.click_id := inputs.rdt_cid
}
let res := fetch(f'https://ads-api.reddit.com/api/v2.0/conversions/events/{inputs.accountId}', {
  'method': 'POST',
  'headers': {
    'Authorization': f'Bearer {inputs.conversionsAccessToken}', 'Content-Type': 'application/json',
    'User-Agent': 'hedgerow:conversions:1.0'
  },
  'body': {'test_mode': false, 'events': [item]}
})
if (res.status >= 400) {
  throw Error(f'Reddit did not take the conversion: {res.status}: {res.body}')
}
`;

const redditExtra: InputSchemaItem[] = [
  { key: 'rdt_cid', type: 'string', label: 'Reddit Click ID (rdt_cid)', secret: false, required: false, default: '{person.properties.rdt_cid ?? person.properties.$initial_rdt_cid}' },
  {
    key: 'eventProperties', type: 'dictionary', label: 'Event parameters', secret: false, required: false,
    default: { conversion_id: '{event.uuid}', value, currency: '{event.properties.currency}' },
  },
];

export const redditTemplate: HogFunctionTemplate = {
  id: 'template-reddit-conversions-api',
  name: 'Reddit Conversions API',
  description: 'Sends conversion events to Reddit\'s Conversions API',
  type: 'destination',
  status: 'alpha',
  free: false,
  category: ['Advertisement'],
  icon_url: '/static/services/reddit.png',
  code: redditCode,
  inputs_schema: [
    { key: 'accountId', type: 'string', label: 'Reddit Ads account ID', secret: false, required: true, default: '' },
    { key: 'conversionsAccessToken', type: 'string', label: 'Conversion Access Token', secret: true, required: true, default: '' },
    {
      key: 'userProperties', type: 'dictionary', label: 'User parameters', secret: false, required: false,
      default: {
        email: '{sha256Hex(lower(person.properties.email))}', user_agent: '{event.properties.$raw_user_agent}',
        ip_address: '{sha256Hex(event.properties.$ip)}',
      },
    },
  ],
  filters: null,
  masking: null,
  mapping_templates: mappings('eventType', [
    ['Page Visit', '$pageview', 'PageVisit'], ['Search', 'Products Searched', 'Search'], ['Product Added', 'Product Added', 'AddToCart'],
    ['Product Added to Wishlist', 'Product Added to Wishlist', 'AddToWishlist'], ['Order Completed', 'Order Completed', 'Purchase'],
    ['Product Viewed', 'Product Viewed', 'ViewContent'], ['Lead Generated', 'Lead Generated', 'Lead'], ['Signed Up', 'Signed Up', 'SignUp'],
  ], redditExtra),
};

const tiktokCode = `if (empty(inputs.pixelId) or empty(inputs.accessToken)) {
  throw Error('The pixel ID and the access token are required')
}
fun present(values) {
  let out := {}
  for (let key, v in values) {
    if (not empty(v)) {
      out[key] := v
    }
  }
  return out
}
let item := {
  'event': inputs.eventName, 'event_time': toInt(inputs.eventTimestamp), 'event_id': inputs.eventId,
  'user': present(inputs.userProperties), 'properties': present(inputs.propertyProperties), 'page': present(inputs.pageProperties)
}
let body := {'event_source': 'web', 'event_source_id': inputs.pixelId, 'data': [item]}
if (not empty(inputs.testEventCode)) {
  body.test_event_code := inputs.testEventCode
}
let res := fetch('https://business-api.tiktok.com/open_api/v1.3/event/track/', {
  'method': 'POST', 'headers': {'Access-Token': inputs.accessToken, 'Content-Type': 'application/json'}, 'body': body
})
// TikTok answers 200 with a non-zero code when it refused the event.
if (res.status >= 400 or (res.body.code ?? 0) != 0) {
  throw Error(f'TikTok did not take the event: {res.status}: {res.body}')
}
`;

const tiktokExtra: InputSchemaItem[] = [
  { key: 'eventId', type: 'string', label: 'Event ID', secret: false, required: true, default: '{event.uuid}' },
  { key: 'eventTimestamp', type: 'string', label: 'Event timestamp', secret: false, required: true, default: '{toUnixTimestamp(event.timestamp)}' },
  {
    key: 'propertyProperties', type: 'dictionary', label: 'Property properties', secret: false, required: true,
    default: { content_type: 'product', currency: "{event.properties.currency ?? 'USD'}", value, order_id: '{event.properties.order_id}', search_string: '{event.properties.query}' },
  },
  { key: 'pageProperties', type: 'dictionary', label: 'Page properties', secret: false, required: true, default: { referrer: '{event.properties.$referrer}', url: '{event.properties.$current_url}' } },
];

export const tiktokTemplate: HogFunctionTemplate = {
  id: 'template-tiktok-ads',
  name: 'TikTok Ads Conversions',
  description: 'Sends conversion events to TikTok\'s Events API',
  type: 'destination',
  status: 'alpha',
  free: false,
  category: ['Advertisement'],
  icon_url: '/static/services/tiktok.png',
  code: tiktokCode,
  inputs_schema: [
    { key: 'accessToken', type: 'string', label: 'Access token', secret: true, required: true },
    { key: 'pixelId', type: 'string', label: 'Pixel ID', secret: false, required: true },
    {
      key: 'userProperties', type: 'dictionary', label: 'User properties', secret: false, required: true,
      default: {
        email: "{not empty(person.properties.email) ? sha256Hex(lower(person.properties.email)) : ''}",
        phone: "{not empty(person.properties.phone) ? sha256Hex(person.properties.phone) : ''}",
        external_id: "{not empty(person.id) ? sha256Hex(person.id) : ''}",
        ttclid: '{person.properties.ttclid ?? person.properties.$initial_ttclid}',
        ip: '{event.properties.$ip}', user_agent: '{event.properties.$raw_user_agent}',
      },
    },
    { key: 'testEventCode', type: 'string', label: 'Test Event Code', secret: false, required: false, default: '' },
  ],
  filters: null,
  masking: null,
  mapping_templates: mappings('eventName', [
    ['Page Viewed', '$pageview', 'Pageview'], ['Payment Info Entered', 'Payment Info Entered', 'AddPaymentInfo'],
    ['Product Added', 'Product Added', 'AddToCart'], ['Product Added to Wishlist', 'Product Added to Wishlist', 'AddToWishlist'],
    ['Product Clicked', 'Product Clicked', 'ClickButton'], ['Order Placed', 'Order Placed', 'PlaceAnOrder'],
    ['Signed Up', 'Signed Up', 'CompleteRegistration'], ['Checkout Started', 'Checkout Started', 'InitiateCheckout'],
    ['Order Completed', 'Order Completed', 'CompletePayment'], ['Products Searched', 'Products Searched', 'Search'],
    ['Product Viewed', 'Product Viewed', 'ViewContent'],
  ], tiktokExtra),
};
