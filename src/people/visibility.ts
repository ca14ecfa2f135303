import type { RequesterViewer, Viewer } from '../common/context/viewer.js';

export interface SqlFragment {
  sql: string;
  params: unknown[];
}

/**
 * What a requester may do with a ticket: `read` it (and its public comments, history and attachments), `comment` on
 * it (public comments and attachments), or change it as its `owner` (its status, within the rules of
 * src/people/requester-writes.ts).
 */
export type TicketAccess = 'read' | 'comment' | 'owner';

/**
 * The one visibility rule: the ids of the tickets a requester may read, comment on, or own, as one UNION statement
 * the repositories put inside their own SQL (as the source of a list, or in `id IN (…)` for one ticket or a feed),
 * never applied to rows after a query. A requester owns the tickets whose requester they are; reads and comments
 * on those that name them as a participant; and, when their organization shares tickets, reads its members'
 * (a member is an address the organization lists, or one of its domains not listed by another organization), and
 * comments on them when it shares comments too. Each branch reads an index alone: tickets (requester_key),
 * ticket_participants (email, ticket_id), organization_members (organization_id, email) → tickets (requester_key),
 * organization_domains (organization_id, domain) → tickets (requester_domain, requester_key). Every id it gives is a ticket's.
 */
export function visibleTicketIds(viewer: RequesterViewer, access: TicketAccess = 'read'): SqlFragment {
  // The first branch names the column: `visible.ticket_id`, apart from the `id` of the tickets it is joined to.
  const branches: SqlFragment[] = [{ sql: 'SELECT id AS ticket_id FROM tickets WHERE requester_key = ?', params: [viewer.email] }];
  if (access === 'owner') return union(branches);
  branches.push({ sql: 'SELECT ticket_id FROM ticket_participants WHERE email = ?', params: [viewer.email] });
  const organization = viewer.organization;
  const shared = organization?.sharedTickets && (access === 'read' || organization.sharedComments);
  if (organization && shared) {
    branches.push(
      {
        sql: 'SELECT t.id FROM organization_members m STRAIGHT_JOIN tickets t ON t.requester_key = m.email WHERE m.organization_id = ?',
        params: [organization.id],
      },
      {
        sql:
          'SELECT t.id FROM organization_domains d STRAIGHT_JOIN tickets t ON t.requester_domain = d.domain WHERE d.organization_id = ?' +
          ' AND NOT EXISTS (SELECT 1 FROM organization_members o WHERE o.email = t.requester_key)',
        params: [organization.id],
      },
    );
  }
  return union(branches);
}

function union(branches: SqlFragment[]): SqlFragment {
  return { sql: branches.map((branch) => branch.sql).join(' UNION '), params: branches.flatMap((branch) => branch.params) };
}

/** An attachment a requester may see (`id` names its column): a public comment names it, and no internal comment does. */
const publicAttachment = (id: string) =>
  `EXISTS (SELECT 1 FROM comment_attachments ca JOIN ticket_comments c ON c.id = ca.comment_id WHERE ca.attachment_id = ${id} AND c.visibility = 'PUBLIC')` +
  ` AND NOT EXISTS (SELECT 1 FROM comment_attachments ca JOIN ticket_comments c ON c.id = ca.comment_id WHERE ca.attachment_id = ${id} AND c.visibility = 'INTERNAL')`;

/**
 * What of a ticket they see a requester reads (conditions on the rows of each sub-resource's table): never an internal
 * comment; an attachment only once a public comment names it (and no internal one does: an attachment is uploaded
 * before the comment that names it, so until then it may be an internal note's); no history entry of anything else,
 * nor of a deleted attachment, nor of links or merges (the desk's).
 */
export const REQUESTER_SEES = {
  comments: "ticket_comments.visibility = 'PUBLIC'",
  attachments: publicAttachment('ticket_attachments.id'),
  history:
    "NOT (ticket_history.action = 'COMMENTED' AND EXISTS (SELECT 1 FROM ticket_comments c" +
    " WHERE c.id = CAST(JSON_VALUE(ticket_history.changes, '$.comment.to') AS UNSIGNED) AND c.visibility = 'INTERNAL'))" +
    " AND ticket_history.action NOT IN ('DETACHED', 'LINKED', 'UNLINKED', 'MERGED', 'UNMERGED')" +
    ` AND (ticket_history.action <> 'ATTACHED' OR (${publicAttachment("CAST(JSON_VALUE(ticket_history.changes, '$.attachment.to') AS UNSIGNED)")}))`,
} as const;

/** The condition (` AND …`) a sub-resource's read adds for the viewer: none for the desk. */
export function hiddenFrom(viewer: Viewer, of: keyof typeof REQUESTER_SEES): string {
  return viewer.kind === 'requester' ? ` AND ${REQUESTER_SEES[of]}` : '';
}

/**
 * The changes of the log a requester reads (a condition on `change_log`): those of the tickets they see now, none of
 * an internal comment, and an attachment's only when REQUESTER_SEES would show it now. A deleted ticket is one they no
 * longer see.
 */
export function visibleChanges(viewer: RequesterViewer): SqlFragment {
  const tickets = visibleTicketIds(viewer);
  return {
    sql:
      `change_log.ticket_id IN (${tickets.sql})` +
      " AND NOT (change_log.event_type = 'COMMENT_ADDED' AND JSON_VALUE(change_log.payload, '$.comment.visibility') = 'INTERNAL')" +
      " AND change_log.event_type NOT IN ('ATTACHMENT_DELETED', 'LINKED', 'UNLINKED', 'MERGED', 'UNMERGED')" +
      ` AND (change_log.event_type <> 'ATTACHMENT_ADDED' OR (${publicAttachment("CAST(JSON_VALUE(change_log.payload, '$.attachment.id') AS UNSIGNED)")}))`,
    params: tickets.params,
  };
}

/**
 * What of a ticket is the desk's alone: its tags, custom field values and links (docs/api.md#tags, #custom-fields,
 * #links), and how many comments an import brought (internal ones among them: docs/import.md). A requester's answers,
 * feed and history leave them out.
 */
const DESK_ONLY_PARTS: readonly string[] = ['tags', 'fields', 'links', 'importedComments'];
const deskOnly = (part: string) => DESK_ONLY_PARTS.includes(part) || part.startsWith('fields.');

/**
 * A ticket (a body or an event's), or a history entry's changes, as the viewer may see it: for a requester, without
 * the desk's parts (`tags`, `fields`, and changes named `fields.<key>`).
 */
export function seenBy<T extends object>(viewer: Viewer | undefined, ticket: T): T {
  if (!viewer || viewer.kind !== 'requester' || !Object.keys(ticket).some(deskOnly)) return ticket;
  return Object.fromEntries(Object.entries(ticket).filter(([part]) => !deskOnly(part))) as T;
}
