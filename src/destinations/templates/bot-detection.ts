// PostHog's bot filter (template-bot-detection), a transformation: drops an event whose user
// agent or address is a known bot's (isKnownBotUserAgent, isKnownBotIp: hedgerow's lists,
// src/destinations/bots/), or matches the project's own patterns and ranges. As PostHog's,
// the known lists apply only to browser SDKs' events ($lib web or js, or none): server-side
// SDKs send an HTTP client's user agent from a backend's address, which is no bot. A
// Chrome user agent with a four-digit patch version on a stock "Safari/537.36" ending is
// dropped too: no Chrome release has one; scraper fleets that randomise the version do.
// Written for hedgerow after the template's inputs and behaviour.
import type { HogFunctionTemplate } from './types.js';

const code = `let lib := event.properties.$lib
let fromBrowser := empty(lib) or lib == 'web' or lib == 'js'
let ua := event.properties[inputs.userAgent]

if (empty(ua)) {
  if (inputs.keepUndefinedUseragent == 'No') {
    return null
  }
} else {
  if (fromBrowser and inputs.filterKnownBotUserAgents) {
    if (isKnownBotUserAgent(ua)) {
      return null
    }
    if (match(ua, 'Chrome/[0-9]+[.][0-9]+[.][0-9]+[.][0-9]{4,} (Mobile )?Safari/537[.]36$')) {
      return null
    }
  }
  if (notEmpty(inputs.customBotPatterns)) {
    for (let pattern in splitByString(',', inputs.customBotPatterns)) {
      let p := trim(pattern)
      if (notEmpty(p) and ua =~* p) {
        return null
      }
    }
  }
}

let ip := event.properties.$ip
if (empty(ip)) {
  return event
}
if (fromBrowser and inputs.filterKnownBotIps and isKnownBotIp(ip)) {
  return null
}
if (notEmpty(inputs.customIpPrefixes)) {
  for (let range in splitByString(',', inputs.customIpPrefixes)) {
    let r := trim(range)
    if (notEmpty(r) and isIPAddressInRange(ip, r)) {
      return null
    }
  }
}
return event
`;

export const botDetectionTemplate: HogFunctionTemplate = {
  id: 'template-bot-detection',
  name: 'Filter Bot Events',
  description: 'Drops events from known bots, crawlers, monitors and scripts, by user agent and address (a transformation)',
  type: 'transformation',
  status: 'stable',
  free: true,
  category: ['Custom'],
  icon_url: '/static/hedgehog/builder-hog-01.png',
  code,
  inputs_schema: [
    {
      key: 'userAgent', type: 'string', label: 'User agent property', secret: false, required: true, default: '$raw_user_agent',
      description: 'The event property holding the user agent ($raw_user_agent, $useragent, ...).',
    },
    {
      key: 'filterKnownBotUserAgents', type: 'boolean', label: 'Drop known bot user agents', secret: false, required: true, default: true,
      description: "Browser SDKs' events whose user agent names a known bot, crawler, monitor, headless browser or HTTP client.",
    },
    {
      key: 'customBotPatterns', type: 'string', label: 'Your own bot patterns', secret: false, required: false, default: '',
      description: 'Comma-separated patterns (regular expressions, any case) matched against the user agent of every event.',
    },
    {
      key: 'filterKnownBotIps', type: 'boolean', label: 'Drop known bot addresses', secret: false, required: true, default: true,
      description: "Browser SDKs' events from an address in a crawler's published ranges.",
    },
    {
      key: 'customIpPrefixes', type: 'string', label: 'Your own address ranges', secret: false, required: false, default: '',
      description: 'Comma-separated IPv4 or IPv6 CIDR ranges (198.51.100.0/24, 2001:db8::/48) dropped for every event.',
    },
    {
      key: 'keepUndefinedUseragent', type: 'choice', label: 'Keep events without a user agent', secret: false, required: false, default: 'Yes',
      description: 'Server-side events often have none.',
      choices: [{ value: 'Yes', label: 'Yes' }, { value: 'No', label: 'No' }],
    },
  ],
  filters: null,
  masking: null,
  mapping_templates: null,
};
