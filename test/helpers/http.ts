// HTTP for tests: one call per request, the body parsed as JSON when it is JSON.

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: await readBody(res), headers: res.headers };
}

export async function request(url: string, init: RequestInit = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(url, init);
  return { status: res.status, body: await readBody(res), headers: res.headers };
}

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function bearer(key: string): Record<string, string> {
  return { Authorization: `Bearer ${key}` };
}

// A serving node's stored position of one log consumer (/metrics hedgerow_consumer_position).
export async function positionOn(url: string, consumer: string): Promise<number> {
  const text = (await request(`${url}/metrics`)).body as string;
  const line = new RegExp(`^hedgerow_consumer_position\\{consumer="${consumer}"\\} (\\d+)$`, 'm').exec(text);
  if (!line) throw new Error(`no position of ${consumer} in /metrics`);
  return Number(line[1]);
}
