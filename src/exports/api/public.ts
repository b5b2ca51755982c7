// Public links to the pictures a subscription sends (Slack shows an image only from a link
// it can fetch; a mail reader may too): GET /exporter/<sha256>.png, no key. The name is the
// SHA-256 of the file's bytes, which nobody can guess who was not sent it, and only files of
// assets a subscription published (export_context.subscription_id) are served, until the
// asset expires; every other export stays behind its creator's key.
import { errors } from '../../errors.js';
import type { Route } from '../../http/types.js';
import type { ExportsTables } from '../tables.js';
import { allAssets, contextObject, isExpired } from '../assets/asset-store.js';
import { cacheContent, readContent } from '../assets/files.js';
import type { SharedFiles } from '../assets/shared.js';
import type { StoredContent } from '../types.js';

export const publicLink = (siteUrl: string, content: StoredContent) => `${siteUrl}/exporter/${content.sha256}.png`;

export function publicRoutes(opts: { store: ExportsTables; dir: string; shared?: SharedFiles; now(): Date }): Route[] {
  return [{
    methods: ['GET'], pattern: '/exporter/:file', bodyLimit: 0,
    async handler(req) {
      const m = /^([0-9a-f]{64})\.png$/.exec(req.params.file ?? '');
      if (!m) throw errors.notFound();
      const now = opts.now();
      const asset = allAssets(opts.store).find((a) => a.content?.sha256 === m[1] && contextObject(a.export_context)?.subscription_id !== undefined && !isExpired(a, now));
      if (!asset?.content) throw errors.notFound();
      let bytes = await readContent(opts.dir, asset.content);
      if (!bytes && opts.shared) {
        bytes = await opts.shared.get(asset.content);
        if (bytes) void cacheContent(opts.dir, asset.content, bytes).catch(() => undefined);
      }
      if (!bytes) throw errors.notFound();
      return { status: 200, headers: { 'Content-Type': 'image/png', 'Cache-Control': 'public, max-age=86400' }, body: bytes };
    },
  }];
}
