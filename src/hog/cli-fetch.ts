// fetch for `hedgerow hog run`: one HTTP request as PostHog's CDP makes it (POST and a JSON
// content type unless told otherwise, objects sent as JSON, redirects not followed, 10 s
// limit), answered as the VM expects: {status, body} with the body parsed as JSON when it
// is JSON. No retries: the CLI shows what one delivery does.

import type { FetchOptions, FetchResponse } from './host.js';

const TIMEOUT_MS = 10_000;

export async function cliFetch(url: string, options: FetchOptions | null): Promise<FetchResponse> {
  const method = String(options?.method ?? 'POST').toUpperCase();
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(options?.headers ?? { 'Content-Type': 'application/json' })) {
    if (typeof value === 'string') headers[name] = value;
  }
  const body = method === 'GET' || method === 'HEAD' || options?.body === undefined || options.body === null
    ? undefined
    : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  try {
    const response = await fetch(url, { method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS) });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: the text itself
    }
    return { status: response.status, body: parsed };
  } catch (err) {
    const e = err as Error & { cause?: { message?: string } };
    return { status: 500, body: `${e.name}: ${e.cause?.message ?? e.message}` };
  }
}
