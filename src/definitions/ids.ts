// A definition's id: a UUID derived from what the definition is (project, kind, group type,
// name), not drawn at random. Every node of a cluster records definitions from its own
// event store, so a random id would differ from node to node; this one is the same
// everywhere, and the same again if the definition is deleted and seen anew.
import { createHash } from 'node:crypto';

export function definitionId(projectId: number, ...parts: readonly (string | number)[]): string {
  const h = createHash('sha1').update(`${projectId}\u0000${parts.join('\u0000')}`).digest('hex');
  // Shaped as a name-based UUID (version 5, RFC 4122 variant).
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
