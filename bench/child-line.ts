// The bench scripts start hedgerow (or a bench server) as a child process and wait for
// the JSON line it prints once ready ({"msg":"listening","port":…}). One reader for all of
// them: it parses only complete lines, keeps draining stdout after the line (a pipe left
// unread would block the child once full), and fails when the child exits first.
import type { ChildProcess } from 'node:child_process';

export function jsonLine(child: ChildProcess, msg: string, what = 'child'): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let rest = '';
    let found = false;
    child.stdout!.on('data', (d: Buffer) => {
      if (found) return;
      rest += d.toString();
      const cut = rest.lastIndexOf('\n');
      if (cut < 0) return;
      for (const line of rest.slice(0, cut).split('\n')) {
        let m: Record<string, unknown>;
        try {
          m = JSON.parse(line) as Record<string, unknown>;
        } catch {
          continue; // not a JSON line
        }
        if (m !== null && m.msg === msg) {
          found = true;
          resolve(m);
          return;
        }
      }
      rest = rest.slice(cut + 1);
    });
    child.on('exit', (code) => { if (!found) reject(new Error(`${what} exited (${code}) before printing ${msg}`)); });
  });
}
