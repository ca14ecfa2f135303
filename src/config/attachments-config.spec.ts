import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

  it('stops start-up when ATTACHMENTS_DIRECTORY is missing, not a directory or not writable', () => {
    const root = mkdtempSync(join(tmpdir(), 'attachments-config-'));
    try {
      const file = join(root, 'a-file');
      writeFileSync(file, 'x');
      const parse = (directory: string) =>
        parseAttachmentsConfig(new EnvReader({ ATTACHMENTS_STORAGE: 'filesystem', ATTACHMENTS_DIRECTORY: directory }));
      expect(parse(root)).toMatchObject({ storage: 'filesystem', directory: root });
      expect(() => parse(join(root, 'missing'))).toThrow(`ATTACHMENTS_DIRECTORY ${join(root, 'missing')} does not exist`);
      expect(() => parse(file)).toThrow(`ATTACHMENTS_DIRECTORY ${file} is not a directory`);
      expect(() => parse(join(file, 'below'))).toThrow(`ATTACHMENTS_DIRECTORY ${join(file, 'below')} is not a directory`);
      // Also when the directory is only read (older attachments, the database storage for new ones).
      expect(() => parseAttachmentsConfig(new EnvReader({ ATTACHMENTS_DIRECTORY: file }))).toThrow('is not a directory');
      // Not writable: /proc refuses a new file even to root, for whom chmod would not.
      expect(() => parse('/proc')).toThrow(/^ATTACHMENTS_DIRECTORY \/proc is not writable \(E[A-Z]+\)$/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
