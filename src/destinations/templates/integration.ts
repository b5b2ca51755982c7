// PostHog keeps OAuth connections to other services (Slack workspaces, HubSpot, Google Ads,
// LinkedIn, Linear, GitHub, ...) as integrations, and a function's `integration` input holds
// one's id; the program reads the connection's token from it. hedgerow has no integrations:
// such templates keep PostHog's input (its id is accepted and ignored) and take the token
// from a secret input of their own, `access_token`, and fail with a message that says so
// when it is not set.
export const INTEGRATION_NOTE = 'PostHog\'s connection id: accepted but not used here (hedgerow has no integrations); set access_token instead.';
