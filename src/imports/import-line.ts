import { createHash } from 'node:crypto';
import type { ValueProblem } from '../fields/field-values.js';
import { COMMENT_BODY_MAX_LENGTH } from '../comments/dto/comment-request.dto.js';
import { CommentVisibility } from '../comments/comment-visibility.enum.js';
import type { TicketState } from '../tickets/ticket.rules.js';
import { TicketStatus } from '../tickets/ticket-status.enum.js';
import { TICKET_FIELDS } from '../tickets/ticket-changes.js';

/** The members a line may have (docs/import.md): any other is a mistake an import of thousands must not pass over. */
export const LINE_KEYS = ['externalId', ...TICKET_FIELDS, 'ccEmails', 'tags', 'fields', 'comments'] as const;
export const COMMENT_KEYS = ['externalId', 'author', 'body', 'visibility', 'createdAt'] as const;

export const EXTERNAL_ID_MAX_LENGTH = 255;
/** The most comments one line carries. */
export const LINE_COMMENTS_MAX = 1000;
/** How far ahead of the service's clock a time may be (the other desk's clock may run a little fast). */
const FUTURE_TOLERANCE_MS = 5 * 60_000;

/** A comment of a line, checked; `key` says which comment it is when the line comes again (its externalId, or its content). */
export interface ImportedComment {
  key: string;
  author: string | null;
  body: string;
  visibility: CommentVisibility;
  createdAt: string;
}

/** A line as its job item keeps it: checked when it was received; its custom field values are checked again when written. */
export interface ImportLine extends Pick<TicketState, 'title' | 'description' | 'status' | 'priority' | 'requesterEmail' | 'assignedTo'> {
  externalId: string;
  ccEmails: string[];
  tags: string[];
  fields: Record<string, unknown>;
  createdAt: string | null;
  updatedAt: string | null;
  resolvedAt: string | null;
  comments: ImportedComment[];
  /** What the line says, hashed: a line imported again with the same hash changes nothing. */
  hash: string;
}

/** The ticket's times from a line, each a Date (see importTimes). */
export interface ImportTimes {
  createdAt: Date;
  updatedAt: Date;
  resolvedAt: Date | null;
}

const RESOLVING: ReadonlySet<string> = new Set([TicketStatus.RESOLVED, TicketStatus.CLOSED]);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A date-time with its offset (`2024-03-01T09:30:00Z`, `…+01:00`), as ISO 8601 writes it; null for anything else. */
export function parseTime(value: unknown): Date | null {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(value)) return null;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) || time.getUTCFullYear() < 1970 ? null : time;
}

/** A comment's key when it has no externalId: its time, author and text. */
function contentKey(createdAt: string, author: string | null, body: string): string {
  return `sha256:${createHash('sha256')
    .update(JSON.stringify([createdAt, author, body]))
    .digest('hex')}`;
}

/**
 * What is wrong with a line's own members (the ticket's fields are the v2 body's and are checked as one): an unknown
 * member, its externalId, its times (with an offset, none in the future, created before it was resolved and updated,
 * a resolution only for a RESOLVED or CLOSED ticket) and its comments. `now` is when the line was received.
 */
export function lineProblems(line: Record<string, unknown>, now: Date): ValueProblem[] {
  const problems: ValueProblem[] = [];
  const problem = (field: string, message: string, rejected: unknown) => problems.push({ field, message, rejected });
  for (const key of Object.keys(line)) {
    if (!(LINE_KEYS as readonly string[]).includes(key)) problem(key, `Unknown member; a line has ${LINE_KEYS.join(', ')}`, line[key]);
  }
  const { externalId } = line;
  // Without spaces at its ends: the database compares keys without trailing spaces, so `a` and `a ` would be one.
  if (
    typeof externalId !== 'string' ||
    externalId.trim() !== externalId ||
    externalId === '' ||
    [...externalId].length > EXTERNAL_ID_MAX_LENGTH
  ) {
    problem(
      'externalId',
      `must be the ticket's id in the other desk: 1 to ${EXTERNAL_ID_MAX_LENGTH} characters, without spaces at its ends`,
      externalId,
    );
  }
  const times: Record<string, Date | null> = {};
  for (const name of ['createdAt', 'updatedAt', 'resolvedAt'] as const) {
    const value = line[name];
    if (value === undefined || value === null) {
      times[name] = null;
      continue;
    }
    const time = parseTime(value);
    if (!time) problem(name, 'must be a date-time with its offset, such as 2024-03-01T09:30:00Z', value);
    else if (time.getTime() > now.getTime() + FUTURE_TOLERANCE_MS) problem(name, 'must not be in the future', value);
    times[name] = time;
  }
  const { createdAt, updatedAt, resolvedAt } = times;
  if (createdAt && updatedAt && updatedAt < createdAt) problem('updatedAt', 'must not be before createdAt', line.updatedAt);
  if (resolvedAt && createdAt && resolvedAt < createdAt) problem('resolvedAt', 'must not be before createdAt', line.resolvedAt);
  if (resolvedAt && updatedAt && resolvedAt > updatedAt) problem('resolvedAt', 'must not be after updatedAt', line.resolvedAt);
  if (line.resolvedAt !== undefined && line.resolvedAt !== null && !RESOLVING.has(line.status as string)) {
    problem('resolvedAt', 'only a RESOLVED or CLOSED ticket has one', line.resolvedAt);
  }
  problems.push(...commentProblems(line.comments, now));
  return problems;
}

function commentProblems(comments: unknown, now: Date): ValueProblem[] {
  if (comments === undefined || comments === null) return [];
  if (!Array.isArray(comments)) return [{ field: 'comments', message: 'must be a list of comments', rejected: comments }];
  if (comments.length > LINE_COMMENTS_MAX) {
    return [{ field: 'comments', message: `must have at most ${LINE_COMMENTS_MAX} comments`, rejected: comments.length }];
  }
  const problems: ValueProblem[] = [];
  const keys = new Map<string, number>();
  comments.forEach((comment: unknown, i) => {
    const at = `comments[${i}]`;
    const problem = (field: string, message: string, rejected: unknown) => problems.push({ field: `${at}${field}`, message, rejected });
    if (!isObject(comment)) return problem('', 'must be an object', comment);
    for (const key of Object.keys(comment)) {
      if (!(COMMENT_KEYS as readonly string[]).includes(key))
        problem(`.${key}`, `Unknown member; a comment has ${COMMENT_KEYS.join(', ')}`, comment[key]);
    }
    const { body, author, visibility, createdAt, externalId } = comment;
    if (typeof body !== 'string' || body.trim() === '' || [...body].length > COMMENT_BODY_MAX_LENGTH) {
      problem('.body', `must be 1 to ${COMMENT_BODY_MAX_LENGTH} characters, not blank`, body);
    }
    if (author !== undefined && author !== null && (typeof author !== 'string' || [...author].length > 255)) {
      problem('.author', 'must be at most 255 characters', author);
    }
    if (visibility !== undefined && visibility !== null && !Object.values(CommentVisibility).includes(visibility as CommentVisibility)) {
      problem('.visibility', `must be one of ${Object.values(CommentVisibility).join(', ')}`, visibility);
    }
    const time = parseTime(createdAt);
    if (!time) problem('.createdAt', 'must be a date-time with its offset, such as 2024-03-01T09:30:00Z', createdAt);
    else if (time.getTime() > now.getTime() + FUTURE_TOLERANCE_MS) problem('.createdAt', 'must not be in the future', createdAt);
    if (externalId !== undefined && externalId !== null) {
      if (typeof externalId !== 'string' || externalId === '' || [...externalId].length > EXTERNAL_ID_MAX_LENGTH) {
        problem('.externalId', `must be 1 to ${EXTERNAL_ID_MAX_LENGTH} characters`, externalId);
      } else if (keys.has(externalId)) {
        problem('.externalId', `repeats comments[${keys.get(externalId)}]`, externalId);
      } else keys.set(externalId, i);
    }
  });
  return problems;
}

/**
 * A line whose problems are none, in the form its job keeps: its comments in order, each with its key, and the hash
 * of everything it says. `ticket` holds the ticket's fields as the v2 body's validation left them (tags canonical).
 */
export function importLine(
  line: Record<string, unknown>,
  ticket: Pick<ImportLine, 'title' | 'description' | 'status' | 'priority' | 'requesterEmail' | 'assignedTo' | 'ccEmails' | 'tags'>,
): ImportLine {
  const comments = ((line.comments ?? []) as Array<Record<string, unknown>>).map((comment): ImportedComment => {
    const author = (comment.author as string | null | undefined) ?? null;
    const createdAt = parseTime(comment.createdAt)!.toISOString();
    const body = comment.body as string;
    return {
      key: typeof comment.externalId === 'string' ? `id:${comment.externalId}` : contentKey(createdAt, author, body),
      author,
      body,
      visibility: (comment.visibility as CommentVisibility | null | undefined) ?? CommentVisibility.PUBLIC,
      createdAt,
    };
  });
  const time = (name: 'createdAt' | 'updatedAt' | 'resolvedAt') => {
    const value = line[name];
    return value === undefined || value === null ? null : parseTime(value)!.toISOString();
  };
  const said = {
    externalId: line.externalId as string,
    title: ticket.title,
    description: ticket.description,
    status: ticket.status,
    priority: ticket.priority,
    requesterEmail: ticket.requesterEmail,
    assignedTo: ticket.assignedTo ?? null,
    ccEmails: ticket.ccEmails,
    tags: ticket.tags,
    fields: sortedKeys((line.fields ?? {}) as Record<string, unknown>),
    createdAt: time('createdAt'),
    updatedAt: time('updatedAt'),
    resolvedAt: time('resolvedAt'),
    comments,
  };
  return { ...said, hash: createHash('sha256').update(JSON.stringify(said)).digest('hex') };
}

const sortedKeys = (values: Record<string, unknown>) => Object.fromEntries(Object.entries(values).sort(([a], [b]) => (a < b ? -1 : 1)));

/**
 * The ticket's times from its line: those it gives; else created at the earliest time it names (or when the import
 * was received, `receivedAt`, if it names none), updated at the latest, resolved when updated if it is RESOLVED or
 * CLOSED. Of a line without problems, created ≤ resolved ≤ updated.
 */
export function importTimes(line: ImportLine, receivedAt: Date): ImportTimes {
  const given = (value: string | null) => (value === null ? [] : [new Date(value).getTime()]);
  const named = [
    ...given(line.updatedAt),
    ...given(line.resolvedAt),
    ...line.comments.map((comment) => new Date(comment.createdAt).getTime()),
  ];
  const createdAt = line.createdAt ? new Date(line.createdAt) : new Date(Math.min(receivedAt.getTime(), ...named));
  const updatedAt = line.updatedAt ? new Date(line.updatedAt) : new Date(Math.max(createdAt.getTime(), ...named));
  const resolvedAt = line.resolvedAt ? new Date(line.resolvedAt) : RESOLVING.has(line.status) ? updatedAt : null;
  return { createdAt, updatedAt, resolvedAt };
}
