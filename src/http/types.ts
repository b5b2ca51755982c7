// The plain request → response contract every handler implements, so handlers are
// testable without sockets and the uWS specifics stay in http/server.ts.

export interface HttpRequest {
  method: string;
  path: string;
  rawQuery: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  ip: string;
  body: Buffer;
  params: Record<string, string>;
}

export interface HttpResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer | null;
}

export type Handler = (req: HttpRequest) => HttpResponse | Promise<HttpResponse>;

export interface Route {
  methods: readonly string[];
  pattern: string;
  // Bodies beyond this many bytes are refused with 413 before they are buffered.
  bodyLimit: number;
  handler: Handler;
}
