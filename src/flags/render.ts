// The response bodies of projection.ts written straight to JSON text, for the serving
// hot path: building the body object and then JSON.stringify-ing it cost more than
// evaluating fifty flags. Escaped keys, variants, payloads and reasons are cached (flags
// are compiled once per definitions version, so these recur request after request).
// The text parses to exactly what JSON.stringify(responseBody(...)) gives, member order
// aside: flags stay in evaluation order here, where an object would list integer-like
// keys first. Pure.

import type { ResponseProtocol } from './projection.js';
import type { EvaluationResult, FlagReason } from './types.js';

const CACHE_LIMIT = 10_000;
const quoted = new Map<string, string>();
const reasons = new WeakMap<FlagReason, string>();

/** JSON.stringify(text), cached. */
function q(text: string): string {
  let out = quoted.get(text);
  if (out === undefined) {
    if (quoted.size >= CACHE_LIMIT) quoted.clear();
    out = JSON.stringify(text);
    quoted.set(text, out);
  }
  return out;
}

/** A payload as JSON: stored payloads are usually JSON text, returned as strings. */
function payloadJson(payload: unknown): string {
  if (payload === null || payload === undefined) return 'null';
  return typeof payload === 'string' ? q(payload) : JSON.stringify(payload);
}

function reasonJson(reason: FlagReason): string {
  let out = reasons.get(reason);
  if (out === undefined) {
    out = JSON.stringify({ code: reason.code, condition_index: reason.condition_index, description: reason.description });
    // Reasons the core builds are frozen and shared: cache those only.
    if (Object.isFrozen(reason)) reasons.set(reason, out);
  }
  return out;
}

const valueJson = (value: boolean | string) => (value === true ? 'true' : value === false ? 'false' : q(value));

/** The protocol's flags body as JSON text. */
export function renderBody(protocol: ResponseProtocol, result: EvaluationResult): string {
  const flags = result.flags;
  const errors = result.errors_while_computing_flags ? 'true' : 'false';
  let out: string;
  switch (protocol) {
    case 'decide_v1': {
      out = '{"featureFlags":[';
      let first = true;
      for (let i = 0; i < flags.length; i++) {
        if (!flags[i].enabled) continue;
        out += first ? q(flags[i].key) : `,${q(flags[i].key)}`;
        first = false;
      }
      return `${out}]}`;
    }
    case 'decide_v2': {
      out = '{"featureFlags":{';
      let first = true;
      for (let i = 0; i < flags.length; i++) {
        const f = flags[i];
        if (!f.enabled) continue;
        out += `${first ? '' : ','}${q(f.key)}:${valueJson(f.value)}`;
        first = false;
      }
      return `${out}}}`;
    }
    case 'flags_v1': {
      out = '{"featureFlags":{';
      let payloads = '';
      for (let i = 0; i < flags.length; i++) {
        const f = flags[i];
        const key = q(f.key);
        out += `${i === 0 ? '' : ','}${key}:${valueJson(f.value)}`;
        if (f.payload !== null && f.payload !== undefined) payloads += `${payloads === '' ? '' : ','}${key}:${payloadJson(f.payload)}`;
      }
      return `${out}},"featureFlagPayloads":{${payloads}},"errorsWhileComputingFlags":${errors}}`;
    }
    case 'flags_v2': {
      out = '{"flags":{';
      for (let i = 0; i < flags.length; i++) {
        const f = flags[i];
        const key = q(f.key);
        out += `${i === 0 ? '' : ','}${key}:{"key":${key},"enabled":${f.enabled ? 'true' : 'false'},` +
          `"variant":${f.variant === null ? 'null' : q(f.variant)},"reason":${reasonJson(f.reason)},` +
          `"metadata":{"id":${f.id},"version":${f.version},"description":null,"payload":${payloadJson(f.payload)}}` +
          `${f.failed ? ',"failed":true' : ''}}`;
      }
      return `${out}},"errorsWhileComputingFlags":${errors}}`;
    }
  }
}
