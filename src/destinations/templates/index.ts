// The hog function templates hedgerow ships, by id. Each is Hog written for hedgerow and
// is compiled when a function is created from it (template_id), like any function's code.
// Where PostHog has the same destination, the template has PostHog's id and input names, so
// a function made in PostHog (template_id and inputs) is made here unchanged; hedgerow's
// own ids (template-slack-webhook, template-json-post, template-segment-api,
// template-amplitude, template-mixpanel) stay as they were. README's catalogue table lists
// them all (test/destinations/catalogue.test.ts keeps it true).
import type { HogFunctionTemplate } from './types.js';
import { webhookTemplate } from './webhook.js';
import { slackTemplate, slackWebhookTemplate } from './slack.js';
import { discordTemplate } from './discord.js';
import { teamsTemplate } from './microsoft-teams.js';
import { jsonPostTemplate } from './json-post.js';
import { segmentApiTemplate } from './segment-api.js';
import { makeTemplate, zapierTemplate } from './automation.js';
import { attioTemplate, hubspotContactTemplate, hubspotTemplate, intercomTemplate, zendeskTemplate } from './crm.js';
import {
  brazeTemplate, customerioTemplate, klaviyoEventTemplate, klaviyoUserTemplate, loopsEventTemplate, loopsTemplate, mailchimpTemplate,
  mailjetContactTemplate, mailjetListTemplate, sendgridTemplate,
} from './email-marketing.js';
import { googleAdsTemplate, linkedinAdsTemplate, metaAdsTemplate, redditTemplate, tiktokTemplate } from './ads.js';
import { kinesisTemplate, pubsubTemplate } from './cloud.js';
import { amplitudeTemplate, juneTemplate, mixpanelTemplate, rudderstackTemplate } from './analytics.js';
import { githubTemplate, linearTemplate } from './issues.js';
import { botDetectionTemplate } from './bot-detection.js';

export type { HogFunctionTemplate, MappingTemplate } from './types.js';

export const TEMPLATES: readonly HogFunctionTemplate[] = [
  webhookTemplate, slackTemplate, slackWebhookTemplate, discordTemplate, teamsTemplate, zapierTemplate, makeTemplate,
  hubspotContactTemplate, hubspotTemplate, attioTemplate, intercomTemplate, zendeskTemplate,
  customerioTemplate, brazeTemplate, mailchimpTemplate, sendgridTemplate, mailjetContactTemplate, mailjetListTemplate,
  loopsTemplate, loopsEventTemplate, klaviyoUserTemplate, klaviyoEventTemplate,
  googleAdsTemplate, metaAdsTemplate, linkedinAdsTemplate, redditTemplate, tiktokTemplate,
  pubsubTemplate, kinesisTemplate,
  amplitudeTemplate, mixpanelTemplate, segmentApiTemplate, rudderstackTemplate, juneTemplate,
  linearTemplate, githubTemplate, jsonPostTemplate,
  botDetectionTemplate,
];

const byId = new Map(TEMPLATES.map((t) => [t.id, t]));

export function templateById(id: string): HogFunctionTemplate | undefined {
  return byId.get(id);
}
