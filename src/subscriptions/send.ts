// Sending a message to a subscription's target: a webhook's URL, a Slack incoming webhook's
// URL, or email addresses through the operator's SMTP server.
import type { AddressPolicy } from '../net/address-policy.js';
import type { Message } from './message.js';
import type { SubscriptionRecord } from './records.js';
import { emailData } from './targets/email.js';
import { postJson } from './targets/http.js';
import { slackBody } from './targets/slack.js';
import { sendMail, type SmtpServer } from './targets/smtp.js';
import { webhookBody } from './targets/webhook.js';

export interface SenderOptions {
  smtp: SmtpServer | null;
  from: string;
  timeoutMs: number;
  // What webhook and Slack URLs may reach (public addresses, and what the operator allows).
  policy: AddressPolicy;
}

export function createSender(o: SenderOptions) {
  return async (s: Pick<SubscriptionRecord, 'target_type' | 'target_value'>, m: Message): Promise<void> => {
    switch (s.target_type) {
      case 'webhook': return postJson(s.target_value, webhookBody(m), o.timeoutMs, o.policy);
      // Incoming webhooks take no uploads: Slack shows a picture from its public link.
      case 'slack': return postJson(s.target_value, slackBody(m), o.timeoutMs, o.policy);
      case 'email': {
        if (!o.smtp) throw new Error('No SMTP server is set (HEDGEROW_SMTP_URL): email subscriptions cannot be sent.');
        const to = s.target_value.split(',').map((a) => a.trim()).filter(Boolean);
        return sendMail(o.smtp, { from: o.from, to, data: emailData(m, o.from, to) }, o.timeoutMs);
      }
    }
  };
}
