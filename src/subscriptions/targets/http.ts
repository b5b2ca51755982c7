// A JSON POST that counts as delivered only when answered 2xx within the time allowed.
export async function postJson(url: string, body: unknown, timeoutMs: number): Promise<void> {
  const res = await fetch(url, {
    method: 'POST', headers: { 'Content-Type': 'application/json', 'User-Agent': 'hedgerow-subscriptions' },
    body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text().catch(() => '');
  if (res.status < 200 || res.status >= 300) throw new Error(`${url} answered ${res.status}${text ? `: ${text.slice(0, 200)}` : ''}`);
}
