import { Injectable, ServiceUnavailableException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../../config/app-config.js';
import type { AttachmentStorageKind, AttachmentsConfig } from '../../config/attachments-config.js';
import { AttachmentsRepository } from '../attachments.repository.js';
import type { AttachmentStorage } from './attachment-storage.js';
import { DatabaseStorage } from './database-storage.js';
import { FilesystemStorage } from './filesystem-storage.js';

/**
 * The storages: new uploads go to the configured one (ATTACHMENTS_STORAGE); each attachment is read and removed through
 * the one its row names, so attachments stored before a change of the setting stay readable.
 */
@Injectable()
export class AttachmentStorages {
  private readonly config: AttachmentsConfig;
  private readonly database: DatabaseStorage;
  readonly filesystem: FilesystemStorage | undefined;

  constructor(attachments: AttachmentsRepository, config: ConfigService<AppConfig, true>) {
    this.config = config.get('attachments', { infer: true });
    this.database = new DatabaseStorage(attachments);
    this.filesystem = this.config.directory ? new FilesystemStorage(this.config.directory) : undefined;
  }

  forNew(): AttachmentStorage {
    return this.of(this.config.storage);
  }

  of(kind: AttachmentStorageKind): AttachmentStorage {
    if (kind === 'database') return this.database;
    if (this.filesystem) return this.filesystem;
    throw new ServiceUnavailableException('Attachments in the filesystem storage cannot be reached: ATTACHMENTS_DIRECTORY is not set');
  }
}
