// isKnownBotUserAgent and isKnownBotIp, the functions PostHog gives transformations (its
// bot-filter template, template-bot-detection, drops an event when either answers true).
// Pure: the lists are ./known-user-agents.ts and ./known-ip-ranges.ts, matched here.
import { cidrSet, inCidrSet, parseIp } from '../../net/cidr.js';
import { KNOWN_BOT_IP_RANGES } from './known-ip-ranges.js';
import { KNOWN_BOT_USER_AGENTS } from './known-user-agents.js';

const RANGES = cidrSet(KNOWN_BOT_IP_RANGES);

/** Whether a user agent contains a known bot's marker (any case); false for anything but a string. */
export function isKnownBotUserAgent(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const ua = value.toLowerCase();
  for (const marker of KNOWN_BOT_USER_AGENTS) if (ua.includes(marker)) return true;
  return false;
}

/** Whether an address (IPv4 or IPv6) is in a crawler's published range; false for anything else. */
export function isKnownBotIp(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const address = parseIp(value);
  return address !== null && inCidrSet(RANGES, address);
}
