import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { removeStaleTemporaries, writeDurably } from '../src/durable-file.js';
import { tempDir } from './helpers.js';

it('writes a whole file and leaves no temporary behind', async () => {
  const dir = tempDir();
  try {
    const path = join(dir.path, 'nested', 'state.v8');
    await writeDurably(path, new Uint8Array([1, 2, 3]));
    await writeDurably(path, 'second');
    expect(readFileSync(path, 'utf8')).toBe('second');
    expect(readdirSync(join(dir.path, 'nested'))).toEqual(['state.v8']);
  } finally {
    dir.remove();
  }
});

it('removes the temporaries of processes that died mid-write, and only those', async () => {
  const dir = tempDir();
  try {
    const path = join(dir.path, 'state.v8');
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const names = {
      dead: `state.v8.${dead}-0a1b2c3d.tmp`,
      mine: `state.v8.${process.pid}-0a1b2c3d.tmp`,
      parent: `state.v8.${process.ppid}-0a1b2c3d.tmp`,
      other: 'other.v8.1-0a1b2c3d.tmp',
    };
    for (const name of Object.values(names)) writeFileSync(join(dir.path, name), 'partial');
    expect(await removeStaleTemporaries(path)).toEqual([names.dead]);
    expect(existsSync(join(dir.path, names.dead))).toBe(false);
    for (const name of [names.mine, names.parent, names.other]) expect(existsSync(join(dir.path, name))).toBe(true);
  } finally {
    dir.remove();
  }
});
