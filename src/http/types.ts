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
  // A response written over time (server-sent events): called once the status and headers
  // are out, with the open response; `body` is ignored.
  stream?: (out: ResponseStream) => void;
}

export interface ResponseStream {
  // False once the client is gone (or the stream ended).
  write(chunk: string): boolean;
  end(): void;
  // Called once, when the client goes away or the stream is ended.
  onClose(fn: () => void): void;
}

export type Handler = (req: HttpRequest) => HttpResponse | Promise<HttpResponse>;

export interface Route {
  methods: readonly string[];
  pattern: string;
  // Bodies beyond this many bytes are refused with 413 before they are buffered.
  bodyLimit: number;
  handler: Handler;
}
