// Creating a replicated stream, bucket or store on a JetStream cluster that has just formed,
// or is busy, can outlast a request's timeout while its peers agree on it (seen: a node's
// start on a fresh three-server cluster exiting with "TIMEOUT"). And nodes starting together
// each create the same ones: nats-server accepts the same settings twice, but two creations
// racing each other can see the other's stream half made and refuse with "subjects overlap
// with an existing stream" (10065; seen: about one in a hundred of ten at once, on one
// server; a node's start exiting with it). Asked again, the stream is there and the
// creation is accepted. So either is asked again, a few times; an overlap with a stream of
// another name is refused every time, and thrown.
export const CREATE_ATTEMPTS = 4;
const SUBJECTS_OVERLAP = 10065;

function askAgain(err: unknown): boolean {
  const e = err as { code?: string; api_error?: { err_code?: number } };
  return e.code === 'TIMEOUT' || e.api_error?.err_code === SUBJECTS_OVERLAP;
}

export async function createPatiently<T>(create: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await create();
    } catch (err) {
      if (!askAgain(err) || attempt >= CREATE_ATTEMPTS) throw err;
    }
  }
}
