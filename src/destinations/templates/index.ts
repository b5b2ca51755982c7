// The hog function templates hedgerow ships, by id. Each is Hog written for hedgerow and
// is compiled when a function is created from it (template_id), like any function's code.
import type { HogFunctionTemplate } from './types.js';
import { webhookTemplate } from './webhook.js';
import { slackTemplate } from './slack.js';
import { discordTemplate } from './discord.js';
import { teamsTemplate } from './microsoft-teams.js';
import { jsonPostTemplate } from './json-post.js';
import { segmentApiTemplate } from './segment-api.js';

export type { HogFunctionTemplate, MappingTemplate } from './types.js';

export const TEMPLATES: readonly HogFunctionTemplate[] = [
  webhookTemplate, slackTemplate, discordTemplate, teamsTemplate, jsonPostTemplate, segmentApiTemplate,
];

const byId = new Map(TEMPLATES.map((t) => [t.id, t]));

export function templateById(id: string): HogFunctionTemplate | undefined {
  return byId.get(id);
}
