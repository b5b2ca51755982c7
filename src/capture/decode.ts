// Turns a capture request into its JSON text, exactly in PostHog's order: the `data`
// query parameter or the body, form fields, compression hint, gzip by magic bytes,
// plain base64, then JSON. Finding the payload (locatePayload) inflates nothing; gzip
// and lz64 are inflated apart (inflateSync in the capture worker, gunzipCapped off the
// event loop), each stopping as soon as its cap on decompressed bytes is passed, so a
// small bomb cannot grow memory (docs/decisions/0029).
import { gunzip, gunzipSync } from 'node:zlib';
import { promisify } from 'node:util';
import { errors } from '../errors.js';
import { decompressLz64 } from './lz64.js';

const gunzipAsync = promisify(gunzip);

export interface DecodeInput {
  body: Buffer;
  query: URLSearchParams;
  contentType: string | undefined;
  contentEncoding: string | undefined;
  maxDecompressedBytes: number;
}

type Compression = 'gzip' | 'lz64' | 'base64' | null;

function compressionFrom(hint: string | null | undefined): Compression {
  switch ((hint ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'gzip-js':
      return 'gzip';
    case 'lz64':
    case 'lz-string':
      return 'lz64';
    case 'base64':
    case 'b64':
      return 'base64';
    default:
      return null;
  }
}

export const isGzip = (b: Buffer) => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;

function firstNonSpace(b: Buffer): number {
  for (let i = 0; i < b.length; i++) {
    const c = b[i];
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return c;
  }
  return -1;
}

const BASE64 = /^[A-Za-z0-9+/=_\-\s]+$/;
const isForm = (contentType: string | undefined) => contentType !== undefined && contentType.startsWith('application/x-www-form-urlencoded');

// A plain JSON body, what server SDKs and most clients send: its bytes are the JSON text.
export function isPlainJson(input: DecodeInput): boolean {
  if (input.contentEncoding !== undefined || isForm(input.contentType)) return false;
  const c = firstNonSpace(input.body);
  return (c === 0x7b || c === 0x5b) && !input.query.has('data') && !input.query.has('compression');
}

// A request's payload: its JSON text, or what must be inflated to get it.
export type Payload = { text: Buffer } | { gzip: Buffer } | { lz64: string };

// Where the payload is and how it is encoded; decodes base64 but inflates nothing.
export function locatePayload(input: DecodeInput): Payload {
  const { body, query, contentType } = input;
  const dataParam = query.get('data');

  let payload: Buffer;
  let formCompression: string | null = null;
  if (dataParam) {
    // URL decoding turned base64 '+' into spaces.
    payload = Buffer.from(dataParam.replace(/ /g, '+'), 'utf8');
  } else if (isForm(contentType)) {
    const first = firstNonSpace(body);
    if (first === 0x7b || first === 0x5b) {
      // A JSON body sent with a form content type (curl -d does this): take it as JSON.
      payload = body;
    } else {
      const form = new URLSearchParams(body.toString('utf8'));
      const data = form.get('data');
      if (!data) throw errors.invalidPayload('Form body has no data field.');
      payload = Buffer.from(data.replace(/ /g, '+'), 'utf8');
      formCompression = form.get('compression');
    }
  } else {
    payload = body;
  }
  if (payload.length === 0) throw errors.invalidPayload('Empty request body.');

  const hint = compressionFrom(query.get('compression')) ?? compressionFrom(formCompression) ?? compressionFrom(input.contentEncoding);
  if (hint === 'lz64') return { lz64: payload.toString('utf8') };
  if (isGzip(payload)) return { gzip: payload };
  if (hint === 'gzip') throw errors.invalidPayload('Body is not gzip data.');

  const first = firstNonSpace(payload);
  if (first === 0x7b || first === 0x5b) return { text: payload };
  if (hint === 'base64' || BASE64.test(payload.toString('latin1'))) {
    const decoded = Buffer.from(payload.toString('latin1').replace(/\s/g, ''), 'base64');
    if (isGzip(decoded)) return { gzip: decoded };
    if (decoded.length === 0) throw errors.invalidPayload('Failed to decode base64 data.');
    return { text: decoded };
  }
  return { text: payload };
}

const tooLargeForCap = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError;

// The JSON text of a payload, inflated here (the capture worker's way).
export function inflateSync(payload: Payload, max: number): Buffer {
  if ('text' in payload) return payload.text;
  if ('lz64' in payload) return decompressLz64(payload.lz64, max);
  try {
    return gunzipSync(payload.gzip, { maxOutputLength: max });
  } catch (err) {
    throw tooLargeForCap(err) ? errors.tooLarge('Decompressed request body is too large.') : errors.invalidPayload('Failed to decompress gzip data.');
  }
}

export function parseJson(text: Buffer): unknown {
  try {
    return JSON.parse(text.toString('utf8'));
  } catch {
    throw errors.invalidPayload('Malformed request data: failed to parse JSON.');
  }
}

// gzip inflated off the event loop (libuv's pool): the text, or null past `max` bytes.
export async function gunzipCapped(data: Buffer, max: number): Promise<Buffer | null> {
  try {
    return await gunzipAsync(data, { maxOutputLength: max });
  } catch (err) {
    if (tooLargeForCap(err)) return null;
    throw errors.invalidPayload('Failed to decompress gzip data.');
  }
}

// The parsed payload, for /decide and /flags: gzip is inflated off the event loop, lz64
// here with its cap.
export async function decodePayload(input: DecodeInput): Promise<unknown> {
  const payload = locatePayload(input);
  if (!('gzip' in payload)) return parseJson(inflateSync(payload, input.maxDecompressedBytes));
  const text = await gunzipCapped(payload.gzip, input.maxDecompressedBytes);
  if (text === null) throw errors.tooLarge('Decompressed request body is too large.');
  return parseJson(text);
}
