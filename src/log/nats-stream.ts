// The JetStream stream behind the NATS log: its row is in the cluster's asset table
// (src/cluster/assets.ts), created with those settings when absent; an existing stream (say
// one an operator made with R3) is used as it is.
import type { StreamInfo } from 'nats';
import { EVENT_STREAM, EVENT_SUBJECT } from '../cluster/index.js';

export const STREAM = EVENT_STREAM;
export const SUBJECT = EVENT_SUBJECT;

// A stream made anew starts its sequence again: its creation time tells the two apart.
export const natsLogId = (info: StreamInfo) => `nats:${STREAM}:${info.created}`;
