import { Database } from '../database/database.js';
import { DESK, type Viewer } from '../common/context/viewer.js';
import { mergedView } from '../tickets/merges/merges.repository.js';
import { hiddenFrom } from '../people/visibility.js';
import { Injectable } from '@nestjs/common';
import type { Queryable } from '../database/statement-batch.js';
import type { Transaction } from '../database/transaction.js';
import { type KeysetPageRequest, keysetSql } from '../common/paging/keyset-page.js';
import type { AttachmentStorageKind } from '../config/attachments-config.js';
import type { AttachmentResponse } from './dto/attachment-response.dto.js';

interface AttachmentRow {
  id: string | number;
  ticket_id: string | number;
  filename: string;
  content_type: string;
  size: string | number;
  sha256: string;
  storage: AttachmentStorageKind;
  created_at: Date;
  created_by: string | null;
}

/** An attachment as the service handles it: its metadata and where its bytes are. */
export interface StoredAttachment extends AttachmentResponse {
  storage: AttachmentStorageKind;
}

/** What an upload's row starts with; size, hash and type follow once the bytes are in (`complete`). */
export interface NewAttachmentRow {
  ticketId: string;
  filename: string;
  storage: AttachmentStorageKind;
  createdAt: Date;
  createdBy: string | null;
}

const COLUMNS = 'id, ticket_id, filename, content_type, size, sha256, storage, created_at, created_by';

/** `ticket_attachments`, `attachment_chunks` and `comment_attachments` in plain SQL, mapped once to the wire shape. */
@Injectable()
export class AttachmentsRepository {
  constructor(private readonly database: Database) {}

  /** The upload's row, first statement of its transaction; answers its id. */
  async insert(transaction: Queryable, row: NewAttachmentRow): Promise<number> {
    const { insertId } = (await transaction.query(
      `INSERT INTO ticket_attachments (ticket_id, filename, content_type, size, sha256, storage, created_at, created_by)
       VALUES (?, ?, '', 0, '', ?, ?, ?)`,
      [row.ticketId, row.filename, row.storage, row.createdAt, row.createdBy],
    )) as { insertId: number | string };
    return Number(insertId);
  }

  async complete(
    transaction: Queryable,
    id: number,
    fields: Pick<AttachmentResponse, 'contentType' | 'size' | 'sha256' | 'createdAt'>,
  ): Promise<void> {
    await transaction.query('UPDATE ticket_attachments SET content_type = ?, size = ?, sha256 = ?, created_at = ? WHERE id = ?', [
      fields.contentType,
      fields.size,
      fields.sha256,
      fields.createdAt,
      id,
    ]);
  }

  /** A prepared statement: the chunk travels as its bytes, not hex-encoded in the statement's text. */
  async insertChunk(transaction: Transaction, attachmentId: number, seq: number, data: Buffer): Promise<void> {
    await transaction.execute('INSERT INTO attachment_chunks (attachment_id, seq, data) VALUES (?, ?, ?)', [attachmentId, seq, data]);
  }

  /** One chunk's bytes; undefined when the attachment is gone meanwhile. */
  async chunk(attachmentId: number, seq: number): Promise<Buffer | undefined> {
    const [row]: Array<{ data: Buffer }> = await this.database.query(
      'SELECT data FROM attachment_chunks WHERE attachment_id = ? AND seq = ?',
      [attachmentId, seq],
    );
    return row?.data;
  }

  /** How many attachments the ticket has, as committed when the caller's transaction first reads. */
  async countForTicket(db: Queryable, ticketId: string): Promise<number> {
    const [row] = (await db.query('SELECT COUNT(*) AS n FROM ticket_attachments WHERE ticket_id = ?', [ticketId])) as Array<{
      n: string | number;
    }>;
    return Number(row.n);
  }

  async page(ticketId: string, page: KeysetPageRequest, viewer: Viewer = DESK): Promise<AttachmentResponse[]> {
    const range = keysetSql(page);
    const where = `ticket_id IN (?)${hiddenFrom(viewer, 'attachments')}`;
    const rows: AttachmentRow[] = await this.database.query(`SELECT ${COLUMNS} FROM ticket_attachments WHERE ${where}${range.sql}`, [
      await mergedView(this.database, ticketId),
      ...range.params,
    ]);
    return rows.map((row) => responseOf(fromRow(row)));
  }

  /**
   * `lock`: in the caller's transaction, locked until it ends (a delete), and the ticket's own only; otherwise one of the
   * ticket's or of a ticket merged into it.
   */
  async findOne(
    db: Queryable | undefined,
    ticketId: string,
    id: string,
    lock = false,
    viewer: Viewer = DESK,
  ): Promise<StoredAttachment | undefined> {
    const manager = db ?? this.database;
    const tickets = lock ? [ticketId] : await mergedView(manager, ticketId);
    const [row] = (await manager.query(
      `SELECT ${COLUMNS} FROM ticket_attachments WHERE ticket_id IN (?) AND id = ?${hiddenFrom(viewer, 'attachments')}${lock ? ' FOR UPDATE' : ''}`,
      [tickets, id],
    )) as AttachmentRow[];
    return row && fromRow(row);
  }

  async findMany(ids: readonly number[]): Promise<StoredAttachment[]> {
    if (ids.length === 0) return [];
    const rows: AttachmentRow[] = await this.database.query(`SELECT ${COLUMNS} FROM ticket_attachments WHERE id IN (?) ORDER BY id`, [ids]);
    return rows.map(fromRow);
  }

  /** The ticket's attachments' ids and storages (a ticket's delete). */
  async ofTicket(db: Queryable, ticketId: string | number): Promise<Array<Pick<StoredAttachment, 'id' | 'storage'>>> {
    const rows = (await db.query('SELECT id, storage FROM ticket_attachments WHERE ticket_id = ?', [ticketId])) as AttachmentRow[];
    return rows.map((row) => ({ id: Number(row.id), storage: row.storage }));
  }

  /** Deletes the attachments (their chunks go with them, by foreign key) in the caller's transaction. */
  async delete(db: Queryable, ids: readonly number[]): Promise<void> {
    if (ids.length > 0) await db.query('DELETE FROM ticket_attachments WHERE id IN (?)', [ids]);
  }

  /** Comments that name the attachment. */
  async commentsNaming(db: Queryable, attachmentId: number): Promise<number[]> {
    const rows = (await db.query('SELECT comment_id FROM comment_attachments WHERE attachment_id = ? ORDER BY comment_id', [
      attachmentId,
    ])) as Array<{ comment_id: string | number }>;
    return rows.map((row) => Number(row.comment_id));
  }

  /**
   * Which of `ids` belong to the ticket, locked in the caller's transaction so that no delete takes them meanwhile.
   * With `uploadedBy` (a requester's comment): only those that subject uploaded itself.
   */
  async ofTicketAmong(db: Queryable, ticketId: string | number, ids: readonly number[], uploadedBy?: string | null): Promise<number[]> {
    const own = uploadedBy === undefined ? '' : ' AND created_by <=> ?';
    const rows = (await db.query(`SELECT id FROM ticket_attachments WHERE ticket_id = ? AND id IN (?)${own} LOCK IN SHARE MODE`, [
      ticketId,
      ids,
      ...(uploadedBy === undefined ? [] : [uploadedBy]),
    ])) as Array<{ id: string | number }>;
    return rows.map((row) => Number(row.id));
  }

  async linkToComment(db: Queryable, commentId: number, attachmentIds: readonly number[]): Promise<void> {
    for (const attachmentId of attachmentIds) {
      await db.query('INSERT INTO comment_attachments (comment_id, attachment_id) VALUES (?, ?)', [commentId, attachmentId]);
    }
  }

  /** The attachments each comment names, by comment id. */
  async ofComments(commentIds: readonly number[]): Promise<Map<number, number[]>> {
    const named = new Map<number, number[]>();
    if (commentIds.length === 0) return named;
    const rows: Array<{ comment_id: string | number; attachment_id: string | number }> = await this.database.query(
      'SELECT comment_id, attachment_id FROM comment_attachments WHERE comment_id IN (?) ORDER BY comment_id, attachment_id',
      [commentIds],
    );
    for (const row of rows) {
      const list = named.get(Number(row.comment_id)) ?? [];
      list.push(Number(row.attachment_id));
      named.set(Number(row.comment_id), list);
    }
    return named;
  }
}

function fromRow(row: AttachmentRow): StoredAttachment {
  return {
    id: Number(row.id),
    ticketId: Number(row.ticket_id),
    filename: row.filename,
    contentType: row.content_type,
    size: Number(row.size),
    sha256: row.sha256,
    createdAt: row.created_at,
    createdBy: row.created_by,
    storage: row.storage,
  };
}

/** The wire shape: the metadata without where the bytes are. */
export function responseOf(attachment: StoredAttachment): AttachmentResponse {
  const { storage: _storage, ...response } = attachment;
  return response;
}
