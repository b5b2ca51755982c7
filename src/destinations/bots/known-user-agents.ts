// User-agent substrings of known bots, crawlers, link previewers, monitors, headless
// browsers and HTTP clients, lower case: isKnownBotUserAgent (./known-bots.ts) answers true
// when a user agent contains one, as PostHog's function does with its list. Written for
// hedgerow from the crawlers' and tools' own documented user agents; PostHog's bot-filter
// template applies it only to browser SDKs' events ($lib web or js, or none), since
// server-side SDKs send an HTTP client's user agent.
export const KNOWN_BOT_USER_AGENTS: readonly string[] = [
  // Anything that names itself a bot, crawler, spider or scraper (Googlebot, bingbot,
  // DuckDuckBot, YandexBot, Applebot, GPTBot, ClaudeBot, AhrefsBot, SemrushBot, Twitterbot,
  // LinkedInBot, Slackbot, Discordbot, TelegramBot, Baiduspider, Bytespider, Sogou spider, ...).
  'bot', 'crawler', 'crawling', 'spider', 'scraper',
  // Google's fetchers whose user agent has none of those words.
  'mediapartners-google', 'feedfetcher-google', 'apis-google', 'google-read-aloud', 'google-inspectiontool',
  'googleother', 'google-site-verification', 'google favicon', 'storebot-google',
  // Other search engines, archives and AI fetchers.
  'slurp', 'ia_archiver', 'archive.org', 'heritrix', 'nutch', 'qwantify', 'exabot', 'yeti/', 'coccocbot',
  'chatgpt-user', 'oai-searchbot', 'claude-web', 'claude-user', 'anthropic-ai', 'perplexity-user', 'cohere-ai',
  'ccbot', 'diffbot', 'omgili', 'meta-externalagent', 'meta-externalfetcher',
  // Link previews.
  'facebookexternalhit', 'facebookcatalog', 'embedly', 'quora link preview', 'skypeuripreview', 'vkshare',
  'whatsapp/', 'slack-imgproxy', 'bitlybot', 'redditbot', 'iframely', 'outbrain', 'pinterestbot', 'tumblr/',
  // SEO tools and validators.
  'screaming frog', 'sitebulb', 'seokicks', 'sistrix', 'siteimprove', 'w3c_validator', 'w3c-checklink',
  'validator.nu', 'check_http', 'linkchecker', 'xenu link sleuth',
  // Performance and uptime monitors.
  'lighthouse', 'pagespeed', 'gtmetrix', 'pingdom', 'uptimerobot', 'statuscake', 'site24x7', 'datadogsynthetics',
  'newrelicpinger', 'checkly', 'betteruptime', 'uptime-kuma', 'freshping', 'nodeping', 'monitis', 'hetrixtools',
  'catchpoint', 'dynatrace', 'speedcurve', 'webpagetest', 'ptst/',
  // Headless and automated browsers.
  'headlesschrome', 'headless', 'phantomjs', 'slimerjs', 'puppeteer', 'playwright', 'selenium', 'webdriver',
  'cypress', 'prerender', 'rendertron', 'wkhtmlto', 'htmlunit', 'httpunit', 'zombie.js',
  // HTTP clients and scripting tools.
  'curl', 'wget', 'libwww-perl', 'lwp::simple', 'python-', 'python/', 'aiohttp', 'httpx', 'urllib', 'scrapy',
  'go-http-client', 'java/', 'okhttp', 'apache-httpclient', 'jakarta commons-httpclient', 'axios/', 'node-fetch',
  'undici', 'got (https://github.com/sindresorhus/got)', 'postmanruntime', 'insomnia/', 'httpie', 'guzzlehttp',
  'php/', 'ruby', 'faraday', 'rest-client', 'reqwest', 'hyper/', 'libcurl', 'winhttp', 'powershell', 'dart:io',
  'aws-sdk', 'nmap', 'masscan', 'zgrab', 'nikto', 'sqlmap', 'nuclei', 'httrack', 'offline explorer',
];
