import { storageDirectoryProblemSync } from './storage-directory.js';
import type { EnvReader } from './env-reader.js';

export const ATTACHMENT_STORAGES = ['database', 'filesystem'] as const;
export type AttachmentStorageKind = (typeof ATTACHMENT_STORAGES)[number];

export interface AttachmentsConfig {
  /** Where new attachments' bytes go: chunk rows in the database (a backup holds everything), or files. */
  storage: AttachmentStorageKind;
  /** The directory of the filesystem storage (a shared volume when there are replicas); '' when unset. */
  directory: string;
  maxFileSize: number;
  maxPerTicket: number;
  /** Uploads that stream at once; each holds a database connection while it does, so at most half the pool's 20. */
  maxConcurrentUploads: number;
  /** An upload fails (408) when this long passes without another 64 KiB of its body arriving. */
  uploadIdleTimeoutMs: number;
  /** The filesystem storage's sweeper removes temporary and unowned files older than this. */
  orphanAgeMs: number;
}

export function parseAttachmentsConfig(read: EnvReader): AttachmentsConfig {
  const storage = read.oneOf('ATTACHMENTS_STORAGE', 'database', ATTACHMENT_STORAGES);
  const directory = read.string('ATTACHMENTS_DIRECTORY', '').trim();
  if (storage === 'filesystem' && directory === '') {
    throw read.invalid('ATTACHMENTS_DIRECTORY', 'must name a directory when ATTACHMENTS_STORAGE is filesystem');
  }
  // Set, the directory is used (new uploads with the filesystem storage, older attachments' reads and deletes with
  // either): one that is missing, a file or read-only stops start-up here rather than failing every upload later.
  const problem = directory === '' ? undefined : storageDirectoryProblemSync(directory);
  if (problem) throw read.invalid('ATTACHMENTS_DIRECTORY', `${directory} ${problem}`);
  return {
    storage,
    directory,
    maxFileSize: read.intBetween('ATTACHMENTS_MAX_FILE_SIZE', 25 * 1024 * 1024, 1, 1024 * 1024 * 1024),
    maxPerTicket: read.intBetween('ATTACHMENTS_MAX_PER_TICKET', 100, 1, 100_000),
    maxConcurrentUploads: read.intBetween('ATTACHMENTS_MAX_CONCURRENT_UPLOADS', 8, 1, 10),
    uploadIdleTimeoutMs: read.intBetween('ATTACHMENTS_UPLOAD_IDLE_TIMEOUT_MS', 10_000, 1, 10 * 60 * 1000),
    // Longer than any upload may take (SERVER_REQUEST_TIMEOUT_MS), so that an upload in progress is never swept.
    orphanAgeMs: read.intBetween('ATTACHMENTS_ORPHAN_AGE_MS', 60 * 60 * 1000, 1, 7 * 24 * 60 * 60 * 1000),
  };
}
