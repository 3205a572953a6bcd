import { randomBytes } from 'node:crypto';
import { mkdir, open, rename } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Writes a file so that it is either wholly there or not at all after a crash: temporary file, fsync, rename,
 * then fsync of the directory so the rename itself survives. Asynchronous, so a large file (a state snapshot)
 * does not hold up the event loop while the disk catches up. The temporary name is unique, so two processes
 * writing the same file (a server and the CLI) each rename a whole file of their own.
 */
export async function writeDurably(path: string, content: string | Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  const file = await open(temporary, 'w');
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
