import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { PRIVATE_DIR, PRIVATE_FILE } from './file-modes.js';

/**
 * Writes a file so that it is either wholly there or not at all after a crash: temporary file, fsync, rename,
 * then fsync of the directory so the rename itself survives. Asynchronous, so a large file (a state snapshot)
 * does not hold up the event loop while the disk catches up. The temporary name is unique, so two processes
 * writing the same file (a server and the CLI) each rename a whole file of their own. Files are 0600 and the
 * folders made for them 0700: all of them are the engine's private data.
 */
export async function writeDurably(path: string, content: string | Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: PRIVATE_DIR });
  const temporary = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  const file = await open(temporary, 'w', PRIVATE_FILE);
  try {
    await file.writeFile(content);
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temporary, path);
  const directory = await open(dirname(path), 'r');
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

/** Whether a process of this host with this pid is running (one of another user's counts). */
export const processAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Deletes the temporary files of `path` that a process which has since died left behind mid-write. */
export async function removeStaleTemporaries(path: string): Promise<string[]> {
  const prefix = `${basename(path)}.`;
  const names = await readdir(dirname(path)).catch(() => [] as string[]);
  const stale = names.filter((name) => {
    const match = name.startsWith(prefix) ? /^(\d+)-[0-9a-f]{8}\.tmp$/.exec(name.slice(prefix.length)) : null;
    return match !== null && Number(match[1]) !== process.pid && !processAlive(Number(match[1]));
  });
  await Promise.all(stale.map((name) => unlink(join(dirname(path), name)).catch(() => undefined)));
  return stale;
}
