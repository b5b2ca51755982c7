// What the destinations suites that deliver over HTTP share: a local sink (./http-sink.ts)
// and a test server whose hog functions may fetch from 127.0.0.1, running every consumer
// but insights, and a management API client for it.
import { apiClient, type ApiCall } from './api.js';
import { startSink, type Sink } from './http-sink.js';
import { startTestServer, NO_INSIGHTS, type TestServer } from './server.js';

export interface SinkServer { t: TestServer; api: ApiCall; sink: Sink }

export async function startSinkServer(env: NodeJS.ProcessEnv = {}): Promise<SinkServer> {
  const sink = await startSink();
  const t = await startTestServer({ env: { HEDGEROW_HOG_FETCH_ALLOW: '127.0.0.1', ...env }, consumers: NO_INSIGHTS });
  return { t, api: apiClient(t), sink };
}

export async function stopSinkServer({ t, sink }: SinkServer): Promise<void> {
  await t.close();
  await sink.close();
}
