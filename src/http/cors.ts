// PostHog's ingestion CORS is fully permissive: echo the Origin and the requested
// headers, allow credentials. Browser SDKs depend on it.

export function corsHeaders(headers: Record<string, string>): Record<string, string> {
  return {
    'Access-Control-Allow-Origin': headers.origin || '*',
    'Access-Control-Allow-Credentials': 'true',
    Vary: 'Origin',
  };
}

export function preflightHeaders(headers: Record<string, string>): Record<string, string> {
  return {
    'Access-Control-Allow-Origin': headers.origin || '*',
    'Access-Control-Allow-Credentials': 'true',
    'Access-Control-Allow-Methods': 'GET, POST, PATCH, PUT, DELETE, OPTIONS',
    'Access-Control-Allow-Headers': headers['access-control-request-headers'] || '*',
    'Access-Control-Max-Age': '86400',
    Vary: 'Origin',
  };
}
