import { EnvReader } from './env-reader.js';
import { parseAttachmentsConfig } from './attachments-config.js';

describe('parseAttachmentsConfig', () => {
  it('stores in the database by default, 25 MiB and 100 per ticket at most', () => {
    expect(parseAttachmentsConfig(new EnvReader({}))).toEqual({
      storage: 'database',
      directory: '',
      maxFileSize: 25 * 1024 * 1024,
      maxPerTicket: 100,
      maxConcurrentUploads: 8,
      uploadIdleTimeoutMs: 10_000,
      orphanAgeMs: 3_600_000,
    });
  });

  it('refuses the filesystem storage without a directory, and an unknown storage', () => {
    expect(() => parseAttachmentsConfig(new EnvReader({ ATTACHMENTS_STORAGE: 'filesystem' }))).toThrow(
      'ATTACHMENTS_DIRECTORY must name a directory when ATTACHMENTS_STORAGE is filesystem',
    );
    expect(() => parseAttachmentsConfig(new EnvReader({ ATTACHMENTS_STORAGE: 's3' }))).toThrow(
      'ATTACHMENTS_STORAGE must be one of database, filesystem, got "s3"',
    );
    expect(() => parseAttachmentsConfig(new EnvReader({ ATTACHMENTS_MAX_FILE_SIZE: '0' }))).toThrow(
      'ATTACHMENTS_MAX_FILE_SIZE must be between',
    );
  });
});
