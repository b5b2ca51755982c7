// Cloud message streams: Google Pub/Sub (topics.publish) and Amazon Kinesis (PutRecord,
// signed with AWS Signature Version 4 in the program itself: the VM has sha256Hex and
// sha256HmacChainHex, which is all SigV4 needs). PostHog's ids and input names.
import type { HogFunctionTemplate } from './types.js';
import { INTEGRATION_NOTE } from './integration.js';

const pubsubCode = `let token := inputs.access_token
if (empty(token)) {
  throw Error('No Google Cloud token: set the access_token input (Google connections are not available here)')
}
let res := fetch(f'https://pubsub.googleapis.com/v1/{inputs.topicId}:publish', {
  'method': 'POST',
  'headers': {'Authorization': f'Bearer {token}', 'Content-Type': 'application/json'},
  'body': {'messages': [{'data': base64Encode(jsonStringify(inputs.payload)), 'attributes': inputs.attributes ?? {}}]}
})
if (res.status >= 300) {
  throw Error(f'Pub/Sub did not publish the message: {res.status}: {res.body}')
}
`;

export const pubsubTemplate: HogFunctionTemplate = {
  id: 'template-google-pubsub',
  name: 'Google Pub/Sub',
  description: 'Publishes each event as a message to a Google Pub/Sub topic',
  type: 'destination',
  status: 'beta',
  free: false,
  category: ['Custom'],
  icon_url: '/static/services/google-cloud.png',
  code: pubsubCode,
  inputs_schema: [
    { key: 'auth', type: 'integration', integration: 'google-pubsub', label: 'Google Cloud service account', secret: false, required: false, description: INTEGRATION_NOTE },
    { key: 'access_token', type: 'string', label: 'OAuth access token', description: 'With the pubsub scope; hedgerow does not mint tokens from a service account key.', secret: true, required: false },
    { key: 'topicId', type: 'string', label: 'Topic name', description: 'projects/<project>/topics/<topic>', secret: false, required: true },
    { key: 'payload', type: 'json', label: 'Message Payload', secret: false, required: false, default: { event: '{event}', person: '{person}' } },
    { key: 'attributes', type: 'json', label: 'Attributes', secret: false, required: false, default: {} },
  ],
  filters: null,
  masking: null,
  mapping_templates: null,
};

// SigV4 (docs.aws.amazon.com, "Create a signed AWS API request"): a canonical request of
// the method, path, query, the signed headers and the body's hash; a string to sign of the
// algorithm, time, scope and that request's hash; the signature an HMAC chain from
// AWS4<secret> over the day, region, service and aws4_request, then over the string.
const kinesisCode = `let region := inputs.aws_region
let host := f'kinesis.{region}.amazonaws.com'
let target := 'Kinesis_20131202.PutRecord'
let contentType := 'application/x-amz-json-1.1'
let body := jsonStringify({
  'StreamName': inputs.aws_kinesis_stream_name,
  'PartitionKey': inputs.aws_kinesis_partition_key ?? generateUUIDv4(),
  'Data': base64Encode(jsonStringify(inputs.payload))
})

let amzDate := formatDateTime(now(), '%Y%m%dT%H%i%SZ', 'UTC')
let day := substring(amzDate, 1, 8)
let scope := f'{day}/{region}/kinesis/aws4_request'
let signedHeaders := 'content-type;host;x-amz-date;x-amz-target'
let canonical := f'POST\\n/\\n\\ncontent-type:{contentType}\\nhost:{host}\\nx-amz-date:{amzDate}\\nx-amz-target:{target}\\n\\n{signedHeaders}\\n{sha256Hex(body)}'
let toSign := f'AWS4-HMAC-SHA256\\n{amzDate}\\n{scope}\\n{sha256Hex(canonical)}'
let signature := sha256HmacChainHex([f'AWS4{inputs.aws_secret_access_key}', day, region, 'kinesis', 'aws4_request', toSign])

let res := fetch(f'https://{host}/', {
  'method': 'POST',
  'headers': {
    'Content-Type': contentType,
    'X-Amz-Target': target,
    'X-Amz-Date': amzDate,
    'Authorization': f'AWS4-HMAC-SHA256 Credential={inputs.aws_access_key_id}/{scope}, SignedHeaders={signedHeaders}, Signature={signature}'
  },
  'body': body
})
if (res.status >= 300) {
  throw Error(f'Kinesis did not put the record: {res.status}: {res.body}')
}
`;

export const kinesisTemplate: HogFunctionTemplate = {
  id: 'template-aws-kinesis',
  name: 'AWS Kinesis',
  description: 'Puts each event as a record on an Amazon Kinesis data stream (SigV4-signed)',
  type: 'destination',
  status: 'beta',
  free: false,
  category: ['Analytics'],
  icon_url: '/static/services/aws-kinesis.png',
  code: kinesisCode,
  inputs_schema: [
    { key: 'aws_access_key_id', type: 'string', label: 'AWS Access Key ID', secret: true, required: true },
    { key: 'aws_secret_access_key', type: 'string', label: 'AWS Secret Access Key', secret: true, required: true },
    { key: 'aws_region', type: 'string', label: 'AWS Region', secret: false, required: true, default: 'us-east-1' },
    { key: 'aws_kinesis_stream_name', type: 'string', label: 'Kinesis Stream Name', secret: false, required: true },
    { key: 'aws_kinesis_partition_key', type: 'string', label: 'Kinesis Partition Key', description: 'A random UUID when empty.', secret: false, required: false, default: '{event.uuid}' },
    { key: 'payload', type: 'json', label: 'Message Payload', secret: false, required: false, default: { event: '{event}', person: '{person}' } },
  ],
  filters: null,
  masking: null,
  mapping_templates: null,
};
