// Errors of the NATS write path (./nats.ts), apart so that code handling them (the HTTP
// layer, the CLI, bootstrap) does not load the NATS client.

// The stream could not take the command (NATS unreachable, no acknowledgement in time).
export class ControlUnavailableError extends Error {}
// The data dir holds management state that did not come from this control stream.
export class ForeignStateError extends Error {}
// This process's command was applied to its data dir by another process sharing it (a
// `hedgerow serve` beside a CLI command): written, but its result is not known here.
export class AppliedElsewhereError extends Error {}
// The stream was compacted past the next command this data dir needs (docs/decisions/0033):
// the node must rejoin from a snapshot with an empty data dir.
export class ControlBehindError extends Error {}
