// Creating a replicated stream, bucket or store on a JetStream cluster that has just formed,
// or is busy, can outlast a request's timeout while its peers agree on it (seen: a node's
// start on a fresh three-server cluster exiting with "TIMEOUT"). Creating one with the same
// settings again is accepted, so a timed-out creation is asked again, a few times.
export const CREATE_ATTEMPTS = 4;
export async function createPatiently<T>(create: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await create();
    } catch (err) {
      if ((err as { code?: string }).code !== 'TIMEOUT' || attempt >= CREATE_ATTEMPTS) throw err;
    }
  }
}
