// What test/run-host.ts tells test/run.ts at the end of each file it ran.

// Heads the line that ends a file's output; the rest of the line is a FileEnd as JSON.
export const END_MARK = '\u0001hedgerow-test-file-end ';

export interface FileEnd {
  // The CPU time of the host process (its threads included) and of the children it reaped
  // (servers, nats-servers, CLI runs) while the file ran.
  cpuMs: number;
  // What the file left keeping the event loop alive (libuv resources beyond those the
  // process had before its first file), or that it threw while loading.
  left: string[];
  // The host's resident memory after the file.
  rssMb: number;
}
