// The request-level fields around evaluated flags. /decide carries the client
// configuration posthog-js reads (SPEC §2.7; client-config.ts); /flags carries only flags unless
// asked for config. When the organization is over its flag quota, flags and
// payloads are empty and `quotaLimited` says why; every other field stays.
import type { ResponseProtocol } from './projection.js';
import { CLIENT_SETTINGS } from './client-config.js';

const DECIDE_CONFIG = Object.freeze({
  config: { enable_collect_everything: true },
  toolbarParams: {},
  isAuthenticated: false,
  ...CLIENT_SETTINGS,
});

export function decideEnvelope(): Record<string, unknown> {
  return { ...DECIDE_CONFIG };
}

export function emptyFlagsBody(protocol: ResponseProtocol): Record<string, unknown> {
  switch (protocol) {
    case 'decide_v1':
      return { featureFlags: [] };
    case 'decide_v2':
      return { featureFlags: {} };
    case 'flags_v1':
      return { featureFlags: {}, featureFlagPayloads: {}, errorsWhileComputingFlags: false };
    case 'flags_v2':
      return { flags: {}, errorsWhileComputingFlags: false };
  }
}

export const QUOTA_LIMITED = Object.freeze(['feature_flags']);
