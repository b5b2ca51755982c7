// An exported asset as the API shows it: PostHog's ExportedAssetSerializer fields, in its
// order. has_content is a boolean (as PostHog's serializer gives it; its schema calls it a string).
import type { ExportRecord } from '../assets/asset-store.js';

export function presentAsset(a: ExportRecord) {
  return {
    id: a.id,
    dashboard: a.dashboard,
    insight: a.insight,
    export_format: a.export_format,
    created_at: a.created_at,
    has_content: a.content !== null,
    export_context: a.export_context,
    filename: a.filename,
    expires_after: a.expires_after,
    exception: a.exception,
  };
}
