import { randomBytes } from 'node:crypto';
import { rmSync, statSync, writeFileSync } from 'node:fs';
import { rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The name of the empty file that proves the directory writable, created and removed at once. The orphan sweeper
 * leaves it alone (it is neither an attachment's id nor a partial file), should a crash keep it.
 */
function probePath(directory: string): string {
  return join(directory, `.write-check.${process.pid}.${randomBytes(4).toString('hex')}`);
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error);
}

function statProblem(error: unknown): string {
  const code = codeOf(error);
  if (code === 'ENOENT') return 'does not exist';
  // A file where a directory on the path should be.
  if (code === 'ENOTDIR') return 'is not a directory';
  return `cannot be read (${code})`;
}

const NOT_A_DIRECTORY = 'is not a directory';
const notWritable = (error: unknown) => `is not writable (${codeOf(error)})`;

/**
 * What keeps the filesystem storage from using `directory`, or undefined when nothing does: it must exist, be a
 * directory, and take a new file. Writability is tried by creating a file, not judged from the mode bits, which a
 * process running as root ignores and which say nothing of a read-only mount.
 */
export function storageDirectoryProblemSync(directory: string): string | undefined {
  try {
    if (!statSync(directory).isDirectory()) return NOT_A_DIRECTORY;
  } catch (error) {
    return statProblem(error);
  }
  const probe = probePath(directory);
  try {
    writeFileSync(probe, '', { flag: 'wx' });
  } catch (error) {
    return notWritable(error);
  }
  rmSync(probe, { force: true });
  return undefined;
}

/** storageDirectoryProblemSync without blocking the event loop, for the readiness check while the service runs. */
export async function storageDirectoryProblem(directory: string): Promise<string | undefined> {
  try {
    if (!(await stat(directory)).isDirectory()) return NOT_A_DIRECTORY;
  } catch (error) {
    return statProblem(error);
  }
  const probe = probePath(directory);
  try {
    await writeFile(probe, '', { flag: 'wx' });
  } catch (error) {
    return notWritable(error);
  }
  await rm(probe, { force: true });
  return undefined;
}
