import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, mkdirSync, mkdtempSync, type ReadStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { ForbiddenError, PayloadTooLargeError } from '../errors.js';
import { PRIVATE_DIR, PRIVATE_FILE } from '../file-modes.js';

async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Bytes of uploaded objects under one directory; an object appears whole (temp, fsync, rename, fsync) or not at all. */
export class UploadStorage {
  readonly #dataDir: string;
  #root: string | undefined;

  constructor(dataDir: string) {
    this.#dataDir = dataDir;
  }

  /** Made on first use, so an engine that never stores a file leaves no folder (an in-memory one uses a temp dir). */
  get root(): string {
    if (!this.#root) {
      const root = resolve(this.#dataDir === ':memory:' ? mkdtempSync(join(tmpdir(), 'ce-uploads-')) : join(this.#dataDir, 'uploads'));
      mkdirSync(join(root, '.incoming'), { recursive: true, mode: PRIVATE_DIR });
      this.#root = root;
    }
    return this.#root;
  }

  get #temp(): string {
    return join(this.root, '.incoming');
  }

  /** Defence in depth behind the key pattern: whatever a key says, its path stays inside the root. */
  pathOf(key: string): string {
    const path = resolve(this.root, key);
    if (!path.startsWith(this.root + sep) || path.startsWith(this.#temp + sep))
      throw new ForbiddenError('upload key is outside the storage');
    return path;
  }

  /** Streams a body to disk, hashing as it goes; more than `maxBytes` aborts the write and leaves nothing behind. */
  async write(
    key: string,
    body: AsyncIterable<Uint8Array> | Iterable<Uint8Array> | null,
    maxBytes: number,
  ): Promise<{ size: number; sha256: string }> {
    const target = this.pathOf(key);
    const temp = join(this.#temp, `${randomBytes(8).toString('hex')}.part`);
    const hash = createHash('sha256');
    let size = 0;
    const handle = await open(temp, 'wx', PRIVATE_FILE);
    try {
      for await (const chunk of body ?? []) {
        size += chunk.byteLength;
        if (size > maxBytes) throw new PayloadTooLargeError(`upload is larger than its limit of ${maxBytes} bytes`);
        hash.update(chunk);
        await handle.write(chunk);
      }
      await handle.sync();
    } catch (error) {
      await handle.close();
      await rm(temp, { force: true });
      throw error;
    }
    await handle.close();
    await mkdir(resolve(target, '..'), { recursive: true, mode: PRIVATE_DIR });
    await rename(temp, target);
    await fsyncDir(resolve(target, '..'));
    return { size, sha256: hash.digest('hex') };
  }

  async read(key: string): Promise<{ stream: ReadStream; size: number }> {
    const path = this.pathOf(key);
    const { size } = await stat(path);
    return { stream: createReadStream(path), size };
  }
}
