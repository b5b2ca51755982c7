// A project's group types by index ("0" → "company"). They belong to persons and groups
// (src/persons, being written alongside); until that domain stores them, a project has
// none. This is the one place to switch to its reader.
import type { Store } from '../../store/env.js';

export function groupTypeMapping(_store: Store, _projectId: number): Record<string, string> {
  return {};
}
