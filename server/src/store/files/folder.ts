import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { FILE_COLLECTIONS, isFileKey } from '../../domain/fileKeys.js';
import { assertFileKey, type FileStorage } from './storage.js';

/** A missing file, or a missing folder on its path (a file where a folder of the key would be). */
const isMissing = (err: unknown) => ['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '');

/** fsync a folder, so the names created, renamed or removed in it survive a power cut. */
async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Files under a folder (DATA_DIR): the key is the relative path, so a sealed PDF is
 * DATA_DIR/documents/<id>.pdf exactly as before this port. A put writes a temporary file in the
 * same folder (mode 0600, a name no key can take: it starts with '.'), syncs it, renames it over
 * the key and syncs the folder: a reader never sees a partial file, and a crash leaves the old
 * file or the new one (plus at worst a stray temporary file), never a torn one.
 */
export class FolderStorage implements FileStorage {
  readonly description: string;

  constructor(private readonly root: string) {
    this.description = `folder ${path.resolve(root)}`;
  }

  private pathOf(key: string): string {
    assertFileKey(key);
    return path.join(this.root, ...key.split('/'));
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const file = this.pathOf(key);
    const folder = path.dirname(file);
    const created = await mkdir(folder, { recursive: true });
    const temporary = path.join(folder, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      const handle = await open(temporary, 'wx', 0o600);
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, file);
    } catch (err) {
      await rm(temporary, { force: true });
      throw err;
    }
    await syncFolder(folder);
    // Folders mkdir just made: each one's name lives in its parent, up to the first that existed.
    if (created) {
      for (let f = folder; f !== path.dirname(created); f = path.dirname(f)) await syncFolder(path.dirname(f));
    }
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.pathOf(key));
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    const file = this.pathOf(key);
    try {
      await rm(file);
    } catch (err) {
      if (isMissing(err)) return;
      throw err;
    }
    await syncFolder(path.dirname(file));
  }

  async check(): Promise<void> {}

  async close(): Promise<void> {}

  /**
   * Every key stored here (sorted), for moving files elsewhere (`tawqi db copy`, `tawqi db backup`):
   * the files under the collections' folders whose paths are keys. Temporary files of a put in
   * progress ('.'-led names) are not keys; neither is anything else an operator left there.
   */
  async keys(): Promise<string[]> {
    const out: string[] = [];
    for (const collection of FILE_COLLECTIONS) {
      const folder = path.join(this.root, collection);
      let entries;
      try {
        entries = await readdir(folder, { recursive: true, withFileTypes: true });
      } catch (err) {
        if (isMissing(err)) continue;
        throw err;
      }
      for (const e of entries) {
        if (!e.isFile()) continue;
        const key = path.relative(this.root, path.join(e.parentPath, e.name)).split(path.sep).join('/');
        if (isFileKey(key)) out.push(key);
      }
    }
    return out.sort();
  }
}
