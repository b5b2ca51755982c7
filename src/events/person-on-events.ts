// Which projects' events keep their person's properties as of the event (PostHog's
// `person_properties` column), for the destinations, which give a function the person as
// of its event however far behind the event store they run. Kept only where asked:
// encoding the person into every event row costs the event store.
import type { EventsTables } from './tables.js';

export function keepPersonOnEvents(store: EventsTables, projectId: number, keep: boolean): void {
  if (keep) store.personOnEventsProjects.put(projectId, true);
  else store.personOnEventsProjects.remove(projectId);
}

// Whether a project's events keep their person, read once per project for one transaction.
export function personOnEventsReader(store: EventsTables): (projectId: number) => boolean {
  const known = new Map<number, boolean>();
  return (projectId) => {
    let keep = known.get(projectId);
    if (keep === undefined) {
      keep = store.personOnEventsProjects.get(projectId) === true;
      known.set(projectId, keep);
    }
    return keep;
  };
}
