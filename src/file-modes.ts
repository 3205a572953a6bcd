import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import type { Logger } from './logger.js';

/**
 * What the engine writes is private to the user it runs as: folders 0700, files 0600. The database holds webhook
 * signing secrets in the clear (they sign, so they cannot be hashed), uploads hold customers' documents.
 */
export const PRIVATE_DIR = 0o700;
export const PRIVATE_FILE = 0o600;

/**
 * Creates DATA_DIR 0700, or tightens an existing one that others can read. It is tightened only when this process
 * owns it and it has no sticky bit (a shared folder such as /tmp is only warned about, never narrowed); otherwise
 * the start goes on with a warning naming the mode, so that a read-only or foreign mount does not stop the service.
 */
export function preparePrivateDir(dir: string, logger: Logger): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
  const { mode, uid } = statSync(dir);
  if ((mode & 0o077) === 0) return;
  const ours = process.getuid === undefined || uid === process.getuid();
  const sticky = (mode & 0o1000) !== 0;
  const was = (mode & 0o7777).toString(8);
  if (ours && !sticky) {
    try {
      chmodSync(dir, mode & 0o7700);
      logger.warn({ dataDir: dir, was, now: '700' }, 'DATA_DIR was readable by other users; narrowed to 0700');
      return;
    } catch (error) {
      logger.warn({ dataDir: dir, was, err: error }, 'DATA_DIR is readable by other users and could not be narrowed to 0700');
      return;
    }
  }
  logger.warn(
    { dataDir: dir, was },
    'DATA_DIR is readable by other users and not narrowed (not owned by this user, or shared): make it 0700',
  );
}

/**
 * Makes sure a file exists with mode 0600 before a library (SQLite) opens it with its own default of 0644, and
 * narrows one that exists with a wider mode. SQLite gives a database's -wal and -shm files the database's mode.
 */
export function ensurePrivateFile(path: string): void {
  closeSync(openSync(path, 'a', PRIVATE_FILE));
  narrowFile(path);
}

/** Narrows an existing file to 0600; a missing one is left missing. */
export function narrowFile(path: string): void {
  try {
    const { mode } = statSync(path);
    if ((mode & 0o077) !== 0) chmodSync(path, mode & 0o700);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
