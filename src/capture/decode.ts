// Turns a capture request into a JSON value, exactly in PostHog's order: the `data`
// query parameter or the body, form fields, compression hint, gzip by magic bytes,
// plain base64, then JSON. Decompressed size is capped so a small gzip bomb cannot
// grow memory.
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import LZString from 'lz-string';
import { errors } from '../errors.js';

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

const isGzip = (b: Buffer) => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;

function firstNonSpace(b: Buffer): number {
  for (let i = 0; i < b.length; i++) {
    const c = b[i];
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return c;
  }
  return -1;
}

const BASE64 = /^[A-Za-z0-9+/=_\-\s]+$/;

async function gunzipCapped(data: Buffer, max: number): Promise<Buffer> {
  try {
    return await gunzipAsync(data, { maxOutputLength: max });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) {
      throw errors.tooLarge('Decompressed request body is too large.');
    }
    throw errors.invalidPayload('Failed to decompress gzip data.');
  }
}

// A decoded body: the parsed value and the UTF-8 JSON text it was parsed from (what
// capture writes to the log, src/capture/frames.ts).
export interface DecodedBody {
  value: unknown;
  text: Buffer;
}

function parseJson(text: Buffer): DecodedBody {
  try {
    return { value: JSON.parse(text.toString('utf8')), text };
  } catch {
    throw errors.invalidPayload('Malformed request data: failed to parse JSON.');
  }
}

// A plain JSON body, what server SDKs and most clients send, is decoded without a
// promise; compressed bodies are inflated off the event loop.
export function decodeBody(input: DecodeInput): DecodedBody | Promise<DecodedBody> {
  const { body, query, contentType } = input;
  if (input.contentEncoding === undefined && (contentType === undefined || !contentType.startsWith('application/x-www-form-urlencoded'))) {
    const c = firstNonSpace(body);
    if ((c === 0x7b || c === 0x5b) && !query.has('data') && !query.has('compression')) return parseJson(body);
  }
  return decodeSlow(input);
}

export async function decodePayload(input: DecodeInput): Promise<unknown> {
  return (await decodeBody(input)).value;
}

async function decodeSlow(input: DecodeInput): Promise<DecodedBody> {
  const { body, query, contentType } = input;
  const dataParam = query.get('data');

  let payload: Buffer;
  let formCompression: string | null = null;
  if (dataParam) {
    // URL decoding turned base64 '+' into spaces.
    payload = Buffer.from(dataParam.replace(/ /g, '+'), 'utf8');
  } else if (contentType && contentType.startsWith('application/x-www-form-urlencoded')) {
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
  const max = input.maxDecompressedBytes;

  if (hint === 'lz64') {
    let text: string | null;
    try {
      text = LZString.decompressFromBase64(payload.toString('utf8'));
    } catch {
      text = null;
    }
    if (!text) throw errors.invalidPayload('Failed to decompress lz64 data.');
    if (text.length > max) throw errors.tooLarge('Decompressed request body is too large.');
    return parseJson(Buffer.from(text, 'utf8'));
  }
  if (isGzip(payload)) return parseJson(await gunzipCapped(payload, max));
  if (hint === 'gzip') throw errors.invalidPayload('Body is not gzip data.');

  const first = firstNonSpace(payload);
  if (first === 0x7b || first === 0x5b) return parseJson(payload);
  if (hint === 'base64' || BASE64.test(payload.toString('latin1'))) {
    const decoded = Buffer.from(payload.toString('latin1').replace(/\s/g, ''), 'base64');
    if (isGzip(decoded)) return parseJson(await gunzipCapped(decoded, max));
    if (decoded.length === 0) throw errors.invalidPayload('Failed to decode base64 data.');
    return parseJson(decoded);
  }
  return parseJson(payload);
}
