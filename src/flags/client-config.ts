// The configuration a browser SDK reads, in one place for /decide's config part and for
// posthog-js's remote config (/array/<token>/config and config.js), so the two cannot
// disagree. Field names and meanings are PostHog's; every product hedgerow does not
// have (session recording, heatmaps, site apps, dead clicks, web vitals, exception
// autocapture) is off, and events go to /i/v0/e/. `surveys` is left out rather than
// false: on `false` posthog-js still fetches its surveys script from {api_host}/static/,
// which hedgerow does not serve, so every page load would log two 404s; without the
// field it loads nothing (docs/decisions/0020).

export const CLIENT_SETTINGS = Object.freeze({
  // posthog-js sends gzip when this lists gzip-js, base64 otherwise.
  supportedCompression: ['gzip', 'gzip-js', 'lz64'],
  analytics: { endpoint: '/i/v0/e/' },
  elementsChainAsString: true,
  autocapture_opt_out: false,
  autocaptureExceptions: false,
  errorTracking: { autocaptureExceptions: false, suppressionRules: [] },
  capturePerformance: false,
  captureDeadClicks: false,
  sessionRecording: false,
  heatmaps: false,
  siteApps: [],
  // Person profiles for identified users only, posthog-js's default today; older SDKs read this.
  defaultIdentifiedOnly: true,
});

// The remote config of one project. `hasFeatureFlags: false` lets posthog-js skip its
// /flags call on page load.
export function remoteConfig(token: string, hasFeatureFlags: boolean): Record<string, unknown> {
  return { token, hasFeatureFlags, ...CLIENT_SETTINGS };
}

// config.js: a script that hands the same config to posthog-js through
// window._POSTHOG_REMOTE_CONFIG[token]; site apps (none here) travel beside it, not in it.
export function remoteConfigScript(token: string, config: Record<string, unknown>): string {
  const { siteApps: _siteApps, ...rest } = config;
  return '(function() {\n' +
    '  window._POSTHOG_REMOTE_CONFIG = window._POSTHOG_REMOTE_CONFIG || {};\n' +
    `  window._POSTHOG_REMOTE_CONFIG[${JSON.stringify(token)}] = {\n` +
    `    config: ${JSON.stringify(rest)},\n` +
    '    siteApps: []\n' +
    '  };\n' +
    '})();\n';
}
