// multipart/form-data bodies (RFC 7578), as browsers send a form with a file: each part's
// field name, its file name if any, and its bytes. Small uploads only: the route's body limit
// bounds what is buffered before this reads it.
import { errors } from '../errors.js';
import type { HttpRequest } from './types.js';

export interface FormPart {
  name: string;
  filename: string | null;
  data: Buffer;
}

/** The boundary of a multipart/form-data request, or null when it is not one. */
export function multipartBoundary(req: HttpRequest): string | null {
  const type = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\s*;/i.test(type)) return null;
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(type);
  if (!m) throw errors.parseError('Multipart form parse error - Invalid boundary in multipart: None');
  return m[1] ?? m[2];
}

export function parseMultipart(body: Buffer, boundary: string): FormPart[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: FormPart[] = [];
  let at = body.indexOf(delimiter);
  if (at < 0) throw errors.parseError('Multipart form parse error - no boundary found in the body');
  for (;;) {
    at += delimiter.length;
    // The closing delimiter ends with "--".
    if (body[at] === 0x2d && body[at + 1] === 0x2d) break;
    const headersEnd = body.indexOf('\r\n\r\n', at);
    const next = body.indexOf(delimiter, at);
    if (headersEnd < 0 || next < 0 || headersEnd > next) throw errors.parseError('Multipart form parse error - a part is not terminated');
    const headers = body.subarray(at, headersEnd).toString('utf8');
    const disposition = /content-disposition:\s*form-data([^\r\n]*)/i.exec(headers)?.[1] ?? '';
    const name = /;\s*name="([^"]*)"/i.exec(disposition)?.[1];
    const filename = /;\s*filename="([^"]*)"/i.exec(disposition)?.[1] ?? null;
    // The part's data ends with the CRLF before the next delimiter.
    if (name !== undefined) parts.push({ name, filename, data: body.subarray(headersEnd + 4, next - 2) });
    at = next;
  }
  return parts;
}

/** A form as a body: text fields as strings, files as their text (the last of a name wins). */
export function formObject(req: HttpRequest, boundary: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const part of parseMultipart(req.body, boundary)) out[part.name] = part.data.toString('utf8');
  return out;
}
