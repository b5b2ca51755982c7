// `hedgerow user password --email E`: sets the password a user signs in to the web app
// with. Read from stdin (one line; `echo … | hedgerow user password`), or asked for twice,
// unechoed, on a terminal; never a flag, which would leave it in the shell's history.
import { createInterface } from 'node:readline';
import { AppliedElsewhereError, type DataDirOpener } from '../../state/index.js';
import type { AccessTables } from '../tables.js';
import { tenancyCommands } from '../tenancy/commands.js';
import { sessionCommands } from './commands.js';
import { createSessionStore } from './store.js';
import { MIN_PASSWORD_LENGTH } from './password.js';

type Flags = Record<string, string | boolean | undefined>;

export interface PasswordOptions {
  dataDir: string;
  open: DataDirOpener<AccessTables>;
  json: boolean;
  email: string | undefined;
  // Where the password comes from (stdin by default).
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
}

export function passwordCommand(sub: string, flags: Flags, config: { dataDir: string; json: boolean; open: DataDirOpener<AccessTables> }): Promise<string> {
  if (sub !== 'password') throw new Error('usage: hedgerow user password --email E');
  return setUserPassword({ ...config, email: typeof flags.email === 'string' ? flags.email : undefined });
}

export async function setUserPassword(o: PasswordOptions): Promise<string> {
  if (!o.email) throw new Error('user password needs --email');
  const input = o.input ?? process.stdin;
  const password = input.isTTY ? await askTwice(input) : await firstLine(input);
  if (password.length < MIN_PASSWORD_LENGTH) throw new Error(`a password needs at least ${MIN_PASSWORD_LENGTH} characters`);
  const opened = await o.open(o.dataDir, [...tenancyCommands, ...sessionCommands]);
  try {
    const id = opened.store.tenancy.get(['user_email', o.email.trim().toLowerCase()]) as number | undefined;
    if (id === undefined) throw new Error(`no user with email ${o.email} (\`hedgerow user add\` adds one)`);
    // Sessions are not opened here: the lifetime only matters to the server's.
    const sessions = createSessionStore({ store: opened.store, writes: opened.writes, ttlMs: 0 });
    await sessions.setPassword(id, password).catch((err: unknown) => {
      // Applied all the same, by a `serve` sharing this data dir (cluster mode).
      if (!(err instanceof AppliedElsewhereError)) throw err;
    });
    return o.json ? JSON.stringify({ id, email: o.email.toLowerCase(), password_set: true }) : `password set for ${o.email.toLowerCase()}; their other sessions are signed out`;
  } finally {
    await opened.close();
  }
}

async function firstLine(input: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of input) {
    text += chunk.toString();
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0];
}

// Asked on the terminal without echo (readline writes nothing while `muted`).
async function askTwice(input: NodeJS.ReadableStream): Promise<string> {
  const ask = (prompt: string) => new Promise<string>((resolve) => {
    const out = process.stderr;
    const rl = createInterface({ input, output: out, terminal: true });
    const write = (rl as unknown as { _writeToOutput(s: string): void });
    let muted = false;
    write._writeToOutput = (s: string) => { if (!muted) out.write(s); };
    rl.question(prompt, (answer) => { rl.close(); out.write('\n'); resolve(answer); });
    muted = true;
  });
  const first = await ask('New password: ');
  const again = await ask('Again: ');
  if (first !== again) throw new Error('the two passwords differ');
  return first;
}
