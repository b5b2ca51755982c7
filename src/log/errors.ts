// Why an append can fail, whatever the log implementation. Capture maps these to
// HTTP answers: a too-large event is the client's fault (413, SDKs halve the batch),
// an unavailable log is ours and temporary (503, SDKs retry).

export class EventTooLargeError extends Error {}

export class LogUnavailableError extends Error {}
