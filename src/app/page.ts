// The one HTML page: the import map (bare names → the URLs ./static.ts serves), the style
// sheet, the modules every load needs (preloaded together), the app's first question (who is
// signed in: asked while the modules load, not after) and the app's entry module. Its
// Content-Security-Policy allows scripts from this origin and the import map alone (by its
// hash): no inline script, nothing from elsewhere.
import { createHash } from 'node:crypto';
import { REVALIDATE, staticFile, type AppFiles, type StaticFile } from './static.js';

export function indexPage({ imports, preload, entry, style }: Pick<AppFiles, 'imports' | 'preload' | 'entry' | 'style'>): { file: StaticFile; csp: string } {
  const map = JSON.stringify({ imports });
  const hash = createHash('sha256').update(map).digest('base64');
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>hedgerow</title>
<link rel="stylesheet" href="${style}">
<script type="importmap">${map}</script>
${preload.map((url) => `<link rel="modulepreload" href="${url}">`).join('\n')}
<link rel="preload" href="/api/users/@me" as="fetch" crossorigin="anonymous">
<script type="module" src="${entry}"></script>
</head>
<body>
<div id="app"><p>Loading…</p></div>
<noscript>The hedgerow app needs JavaScript.</noscript>
</body>
</html>
`;
  const csp = [
    "default-src 'self'", `script-src 'self' 'sha256-${hash}'`, "style-src 'self' 'unsafe-inline'", "img-src 'self' data: blob:",
    "connect-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'", "form-action 'self'",
  ].join('; ');
  return { file: staticFile(Buffer.from(html), 'text/html; charset=utf-8', REVALIDATE), csp };
}
