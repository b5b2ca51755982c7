// The SMTP client's TLS against a local receiver with a throwaway self-signed certificate
// (test/fixtures/test-tls.ts): smtp:// upgraded with STARTTLS when offered (the login and the
// message encrypted), or refused when STARTTLS is required and not offered (nothing sent);
// smtps:// as implicit TLS; the certificate verified unless the operator trusts it (a CA
// file) or takes any (HEDGEROW_SMTP_CERTIFICATES=any), from the settings as the service
// reads them.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseSettings } from '../../src/settings.js';
import { sendMail, smtpServerOf } from '../../src/subscriptions/targets/smtp.js';
import { TEST_TLS_CERT, TEST_TLS_KEY } from '../fixtures/test-tls.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { tempDir } from '../helpers/temp-dir.js';

const s = suite('subscriptions: SMTP over TLS');
const KEYS = { cert: TEST_TLS_CERT, key: TEST_TLS_KEY };
let starttls: SmtpSink;
let implicit: SmtpSink;
let plain: SmtpSink;
let dir: string;
let caFile: string;

s.before(async () => {
  [starttls, implicit, plain] = await Promise.all([startSmtpSink({ tls: KEYS }), startSmtpSink({ tls: KEYS, implicit: true }), startSmtpSink()]);
  dir = tempDir('hedgerow-smtp-tls-');
  caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, TEST_TLS_CERT);
});
s.after(async () => {
  await Promise.all([starttls.close(), implicit.close(), plain.close()]);
  rmSync(dir, { recursive: true, force: true });
});
s.before.each(() => {
  for (const sink of [starttls, implicit, plain]) {
    sink.messages = [];
    sink.logins = [];
  }
});

const withLogin = (sink: SmtpSink) => sink.url.replace('://', '://bot:secret@');
const server = (env: Record<string, string>) => smtpServerOf(parseSettings(env).config.subscriptions)!;
const mail = { from: 'reports@hedgerow.test', to: ['ann@example.com'], data: 'Subject: hi\r\n\r\nhello\r\n' };
const refused = (p: Promise<void>, re: RegExp) => p.then(() => assert.unreachable('sent'), (err: Error) => assert.match(err.message, re));

s('smtp:// upgrades with STARTTLS when offered: the login and the message go encrypted to a server the CA file trusts', async () => {
  await sendMail(server({ HEDGEROW_SMTP_URL: withLogin(starttls), HEDGEROW_SMTP_CA_FILE: caFile }), mail, 5000);
  assert.is(starttls.messages.length, 1);
  assert.is(starttls.messages[0].tls, true);
  assert.is(starttls.messages[0].data, mail.data);
  assert.equal(starttls.logins, [{ auth: '\0bot\0secret', tls: true }]);
});

s('a self-signed certificate is refused by default, with what to set; taken with HEDGEROW_SMTP_CERTIFICATES=any', async () => {
  await refused(sendMail(server({ HEDGEROW_SMTP_URL: withLogin(starttls) }), mail, 5000), /^SMTP STARTTLS: self-signed certificate.*HEDGEROW_SMTP_CA_FILE/);
  assert.equal([starttls.messages.length, starttls.logins.length], [0, 0], 'no password, no message');
  await sendMail(server({ HEDGEROW_SMTP_URL: withLogin(starttls), HEDGEROW_SMTP_CERTIFICATES: 'any' }), mail, 5000);
  assert.equal(starttls.messages.map((m) => m.tls), [true]);
});

s('STARTTLS required: a server without it is sent nothing (no password); auto sends in the clear only without a login', async () => {
  await refused(sendMail(server({ HEDGEROW_SMTP_URL: withLogin(plain), HEDGEROW_SMTP_STARTTLS: 'required' }), mail, 5000), /does not offer STARTTLS.*nothing was sent/);
  assert.equal([plain.messages.length, plain.logins.length], [0, 0]);
  await refused(sendMail(server({ HEDGEROW_SMTP_URL: withLogin(plain) }), mail, 5000), /does not offer STARTTLS, and the login .* is not sent in the clear: nothing was sent/);
  assert.equal([plain.messages.length, plain.logins.length], [0, 0], 'auto: no password in the clear');
  await sendMail(server({ HEDGEROW_SMTP_URL: plain.url }), mail, 5000);
  assert.equal(plain.messages.map((m) => m.tls), [false]);
  assert.equal(plain.logins, []);
  // Required and offered: upgraded as in auto.
  await sendMail(server({ HEDGEROW_SMTP_URL: starttls.url, HEDGEROW_SMTP_STARTTLS: 'required', HEDGEROW_SMTP_CA_FILE: caFile }), mail, 5000);
  assert.equal(starttls.messages.map((m) => m.tls), [true]);
});

s('smtps:// is TLS from the first byte, under the same trust', async () => {
  await refused(sendMail(server({ HEDGEROW_SMTP_URL: withLogin(implicit) }), mail, 5000), /^SMTP TLS: self-signed certificate.*HEDGEROW_SMTP_CA_FILE/);
  assert.is(implicit.logins.length, 0);
  await sendMail(server({ HEDGEROW_SMTP_URL: withLogin(implicit), HEDGEROW_SMTP_CA_FILE: caFile }), mail, 5000);
  assert.equal(implicit.messages.map((m) => m.tls), [true]);
  assert.equal(implicit.logins, [{ auth: '\0bot\0secret', tls: true }]);
});

s.run();
