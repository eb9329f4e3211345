/**
 * An exclusive lock on a data directory that dies with the process holding it.
 *
 * The holder listens on an abstract Unix socket (Linux) named after the directory's real
 * path. Binding is exclusive, and the kernel removes the socket the moment its process ends,
 * however it ends (kill -9, OOM): there is no lock file to go stale and no pid to be
 * reused by another program. A second start finds the name taken, asks the holder who it
 * is (the holder answers with its pid and command line) and refuses, naming it, before it
 * touches anything. Children (PostgreSQL, anvil) do not inherit the socket, so a holder
 * killed with SIGKILL frees the lock even while its children live on; the next start takes
 * the lock and only then recovers them.
 *
 * Abstract sockets belong to a network namespace: two containers that share the directory
 * through a volume but not their network do not see each other's lock.
 */
import { createHash } from 'node:crypto';
import { mkdir, realpath } from 'node:fs/promises';
import net from 'node:net';

export class DataDirInUseError extends Error {
  constructor(
    readonly dir: string,
    readonly holder: { pid: number; command: string; since: string } | null,
  ) {
    super(
      holder
        ? `${dir} is in use by another instance of the service (pid ${holder.pid}: ${holder.command}; running since ${holder.since}). ` +
            'Stop that one first, or set DATA_DIR to another directory.'
        : `${dir} is in use by another instance of the service. Stop that one first, or set DATA_DIR to another directory.`,
    );
    this.name = 'DataDirInUseError';
  }
}

export interface DataDirLock {
  readonly dir: string;
  release(): Promise<void>;
}

export async function lockDataDir(dir: string): Promise<DataDirLock> {
  // Private from the start: it will hold the master key file and credentials (keys/key-file-modes.ts).
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const real = await realpath(dir);
  const name = `\0stablecoin-wallet-service/${createHash('sha256').update(real).digest('hex')}`;
  const since = new Date().toISOString();
  const command = [process.argv[0], ...process.execArgv, ...process.argv.slice(1)].join(' ');
  const about = JSON.stringify({ pid: process.pid, command, since });
  for (let attempt = 1; ; attempt++) {
    const server = net.createServer((socket) => socket.end(about));
    try {
      await listen(server, name);
      // The lock must not keep the process alive on its own.
      server.unref();
      return {
        dir: real,
        release: () => new Promise<void>((resolve) => server.close(() => resolve())),
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    }
    const holder = await askHolder(name);
    // The holder may have exited between our bind and our question: try again.
    if (holder || attempt >= 3) throw new DataDirInUseError(real, holder);
  }
}

function listen(server: net.Server, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(name, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function askHolder(name: string): Promise<{ pid: number; command: string; since: string } | null> {
  return new Promise((resolve) => {
    let text = '';
    const socket = net.connect(name);
    const done = (value: { pid: number; command: string; since: string } | null) => {
      socket.destroy();
      resolve(value);
    };
    socket.setTimeout(2_000, () => done(null));
    socket.on('data', (chunk) => (text += chunk.toString('utf8')));
    socket.on('error', () => done(null));
    socket.on('end', () => {
      try {
        done(JSON.parse(text) as { pid: number; command: string; since: string });
      } catch {
        done(null);
      }
    });
  });
}
