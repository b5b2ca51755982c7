// One evaluation, the response shape of each protocol version. Request-level fields
// (requestId, config, quotaLimited) belong to the route, not here.

import type { EvaluationResult, FlagReason, FlagValue } from './types.js';

export type ResponseProtocol = 'decide_v1' | 'decide_v2' | 'flags_v1' | 'flags_v2';

/**
 * /decide: v1 or none → keys list, v2 → enabled map, v3 → flags_v1, v4+ → flags_v2.
 * /flags: v1 or none → flags_v1, v2+ → flags_v2.
 */
export function responseProtocol(endpoint: 'decide' | 'flags', version: number | undefined): ResponseProtocol {
  const v = version === undefined || !Number.isFinite(version) ? 1 : version;
  if (endpoint === 'flags') return v >= 2 ? 'flags_v2' : 'flags_v1';
  if (v >= 4) return 'flags_v2';
  if (v === 3) return 'flags_v1';
  return v === 2 ? 'decide_v2' : 'decide_v1';
}

export interface DecideV1Body {
  featureFlags: string[];
}

export interface DecideV2Body {
  featureFlags: Record<string, FlagValue>;
}

export interface FlagsV1Body {
  featureFlags: Record<string, FlagValue>;
  featureFlagPayloads: Record<string, unknown>;
  errorsWhileComputingFlags: boolean;
}

export interface FlagDetail {
  key: string;
  enabled: boolean;
  variant: string | null;
  reason: FlagReason;
  metadata: { id: number; version: number; description: string | null; payload: unknown };
  failed?: true;
}

export interface FlagsV2Body {
  flags: Record<string, FlagDetail>;
  errorsWhileComputingFlags: boolean;
}

// A flag keyed "__proto__" must become a key, not the object's prototype.
function put<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** Enabled flag keys. */
export function decideV1Body(result: EvaluationResult): DecideV1Body {
  const featureFlags: string[] = [];
  for (const f of result.flags) if (f.enabled) featureFlags.push(f.key);
  return { featureFlags };
}

/** Enabled flags only, each as its variant or true. */
export function decideV2Body(result: EvaluationResult): DecideV2Body {
  const featureFlags: Record<string, FlagValue> = {};
  for (const f of result.flags) if (f.enabled) put(featureFlags, f.key, f.value);
  return { featureFlags };
}

/** Every evaluated flag (false included, failed ones as false) and the payloads there are. */
export function flagsV1Body(result: EvaluationResult): FlagsV1Body {
  const featureFlags: Record<string, FlagValue> = {};
  const featureFlagPayloads: Record<string, unknown> = {};
  for (const f of result.flags) {
    put(featureFlags, f.key, f.value);
    if (f.payload !== null && f.payload !== undefined) put(featureFlagPayloads, f.key, f.payload);
  }
  return { featureFlags, featureFlagPayloads, errorsWhileComputingFlags: result.errors_while_computing_flags };
}

/** Details per flag: value, reason and metadata; `failed: true` only on errors. */
export function flagsV2Body(result: EvaluationResult): FlagsV2Body {
  const flags: Record<string, FlagDetail> = {};
  for (const f of result.flags) {
    const detail: FlagDetail = {
      key: f.key,
      enabled: f.enabled,
      variant: f.variant,
      reason: f.reason,
      metadata: { id: f.id, version: f.version, description: null, payload: f.payload ?? null },
    };
    if (f.failed) detail.failed = true;
    put(flags, f.key, detail);
  }
  return { flags, errorsWhileComputingFlags: result.errors_while_computing_flags };
}

export function responseBody(
  protocol: ResponseProtocol,
  result: EvaluationResult,
): DecideV1Body | DecideV2Body | FlagsV1Body | FlagsV2Body {
  switch (protocol) {
    case 'decide_v1': return decideV1Body(result);
    case 'decide_v2': return decideV2Body(result);
    case 'flags_v1': return flagsV1Body(result);
    case 'flags_v2': return flagsV2Body(result);
  }
}
