// A JSON POST to a user's URL (a webhook, a Slack incoming webhook) that counts as delivered
// only when answered 2xx in time. The URL is the user's, so the connection reaches only
// public addresses, or those the operator allows (HEDGEROW_SUBSCRIPTION_ALLOW, as hog
// functions' fetch): the socket's own lookup hands it only allowed addresses, and an
// address literal is checked before connecting. No redirect is followed.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { refusal, type AddressPolicy } from '../../net/address-policy.js';

function guardedLookup(policy: AddressPolicy, host: string): LookupFunction {
  return ((hostname: string, options: object, callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const usable = addresses.filter((a) => refusal(a.address, policy, host) === null);
      if (usable.length === 0) return callback(new Error(`Refused to connect to ${hostname}: ${addresses[0] ? refusal(addresses[0].address, policy, host) : 'no address'}`), []);
      if ((options as { all?: boolean }).all) return callback(null, usable);
      callback(null, usable[0].address, usable[0].family);
    });
  }) as unknown as LookupFunction;
}

export function postJson(url: string, body: unknown, timeoutMs: number, policy: AddressPolicy): Promise<void> {
  const target = new URL(url);
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return Promise.reject(new Error(`only http and https URLs are delivered to, not ${target.protocol}`));
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) {
    const why = refusal(host, policy, host);
    if (why !== null) return Promise.reject(new Error(`Refused to connect to ${host}: ${why}`));
  }
  const payload = Buffer.from(JSON.stringify(body));
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<void>((resolve, reject) => {
    const req = request(target, {
      method: 'POST', lookup: guardedLookup(policy, host), timeout: timeoutMs,
      headers: { 'Content-Type': 'application/json', 'Content-Length': payload.length, 'User-Agent': 'hedgerow-subscriptions' },
    }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (d: Buffer) => { if (size < 4096) chunks.push(d); size += d.length; });
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) return resolve();
        const text = Buffer.concat(chunks).toString('utf8').slice(0, 200);
        reject(new Error(`${target.origin}${target.pathname} answered ${status}${text ? `: ${text}` : ''}`));
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${target.origin} did not answer within ${timeoutMs / 1000} s`)));
    req.on('error', reject);
    req.end(payload);
  });
}
