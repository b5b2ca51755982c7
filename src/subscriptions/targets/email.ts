// An email delivery: one message to every address of the target in one SMTP transaction
// (PostHog sends one per address; one transaction is delivered or retried whole), the
// recipients not shown to each other (To names one address, or "undisclosed-recipients"), HTML with each
// picture inline (multipart/related, cid: links) and a plain-text part, PostHog's subject,
// greeting and links.
import { randomBytes } from 'node:crypto';
import { pngFilename, type Message } from '../message.js';

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
// RFC 2047 for a header with anything beyond ASCII.
const header = (s: string) => (/^[\x20-\x7e]*$/.test(s) ? s : `=?UTF-8?B?${Buffer.from(s).toString('base64')}?=`);
const base64Lines = (bytes: Uint8Array | string) => (Buffer.from(bytes).toString('base64').match(/.{1,76}/g) ?? []).join('\r\n');

export function emailData(m: Message, from: string, to: string[]): string {
  const boundary = `hedgerow-${randomBytes(12).toString('hex')}`;
  const alternative = `${boundary}-alt`;
  const text = [m.greeting, '', ...m.items.map((i) => `- ${i.name}${i.error ? ` (not drawn: ${i.error})` : ''}`), '', `View in hedgerow: ${m.links.resource}`,
    `Manage this subscription: ${m.links.subscription}`, ''].join('\r\n');
  const html = `<html><body><p>${escapeHtml(m.greeting)}</p>` +
    m.items.map((item, i) => (item.png
      ? `<h3>${escapeHtml(item.name)}</h3><img src="cid:image${i}@hedgerow" alt="${escapeHtml(item.name)}" width="600">`
      : `<h3>${escapeHtml(item.name)}</h3><p>${escapeHtml(item.error ?? '')}</p>`)).join('') +
    `<p><a href="${escapeHtml(m.links.resource)}">View in hedgerow</a> · <a href="${escapeHtml(m.links.subscription)}">Manage this subscription</a></p></body></html>`;
  const parts = [
    `From: ${from}`, `To: ${to.length === 1 ? to[0] : 'undisclosed-recipients:;'}`, `Subject: ${header(m.subject)}`, `Date: ${new Date(m.deliveredAt).toUTCString()}`, 'MIME-Version: 1.0',
    `Content-Type: multipart/related; boundary="${boundary}"`, '',
    `--${boundary}`, `Content-Type: multipart/alternative; boundary="${alternative}"`, '',
    `--${alternative}`, 'Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: base64', '', base64Lines(text),
    `--${alternative}`, 'Content-Type: text/html; charset=utf-8', 'Content-Transfer-Encoding: base64', '', base64Lines(html),
    `--${alternative}--`,
  ];
  m.items.forEach((item, i) => {
    if (!item.png) return;
    parts.push(`--${boundary}`, 'Content-Type: image/png', 'Content-Transfer-Encoding: base64', `Content-ID: <image${i}@hedgerow>`,
      `Content-Disposition: inline; filename="${pngFilename(item, i)}"`, '', base64Lines(item.png));
  });
  parts.push(`--${boundary}--`, '');
  return parts.join('\r\n');
}
