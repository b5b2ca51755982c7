// An object store as the features use it: JetStream's object store with NATS (its own type
// fits this one), or, embedded, objects in this process's memory (for those the asset table
// keeps there: query results too large for a status), dropped `ttlMs` after they were put.
export interface ObjectMeta {
  name: string;
  size: number;
  // When it was put (ISO 8601).
  mtime: string;
  deleted: boolean;
  metadata?: Record<string, string>;
}

export interface ObjectsView {
  info(name: string): Promise<ObjectMeta | null>;
  list(): Promise<ObjectMeta[]>;
  putBlob(meta: { name: string; metadata?: Record<string, string> }, data: Uint8Array): Promise<ObjectMeta>;
  getBlob(name: string): Promise<Uint8Array | null>;
  put(meta: { name: string; metadata?: Record<string, string> }, data: ReadableStream<Uint8Array>): Promise<ObjectMeta>;
  // The bytes as a stream; `error` settles once it is read whole (a digest that does not match).
  get(name: string): Promise<{ data: ReadableStream<Uint8Array>; error: Promise<Error | null> } | null>;
  delete(name: string): Promise<unknown>;
}

export function memoryObjects(ttlMs: number, now: () => number = Date.now): ObjectsView {
  const objects = new Map<string, { meta: ObjectMeta; bytes: Uint8Array }>();
  const current = (name: string) => {
    const o = objects.get(name);
    if (o && ttlMs > 0 && now() - Date.parse(o.meta.mtime) > ttlMs) {
      objects.delete(name);
      return undefined;
    }
    return o;
  };
  const putBlob = async (meta: { name: string; metadata?: Record<string, string> }, data: Uint8Array): Promise<ObjectMeta> => {
    const stored: ObjectMeta = { name: meta.name, size: data.byteLength, mtime: new Date(now()).toISOString(), deleted: false, metadata: meta.metadata };
    objects.set(meta.name, { meta: stored, bytes: data.slice() });
    return stored;
  };
  return {
    info: async (name) => current(name)?.meta ?? null,
    list: async () => [...objects.keys()].flatMap((name) => current(name)?.meta ?? []),
    putBlob,
    getBlob: async (name) => current(name)?.bytes.slice() ?? null,
    async put(meta, data) {
      const chunks: Uint8Array[] = [];
      for await (const chunk of data as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
      return putBlob(meta, Buffer.concat(chunks));
    },
    async get(name) {
      const o = current(name);
      if (!o) return null;
      const bytes = o.bytes.slice();
      return {
        data: new ReadableStream<Uint8Array>({ start(c) { c.enqueue(bytes); c.close(); } }),
        error: Promise.resolve(null),
      };
    },
    async delete(name) {
      objects.delete(name);
    },
  };
}
