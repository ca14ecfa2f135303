/** What a history entry records: a ticket's create, one of its updates (PUT or PATCH), a comment added, an attachment added or deleted, a link added or removed, a merge or its undoing, an import from another desk. */
export enum HistoryAction {
  CREATED = 'CREATED',
  UPDATED = 'UPDATED',
  COMMENTED = 'COMMENTED',
  ATTACHED = 'ATTACHED',
  DETACHED = 'DETACHED',
  LINKED = 'LINKED',
  UNLINKED = 'UNLINKED',
  MERGED = 'MERGED',
  UNMERGED = 'UNMERGED',
  IMPORTED = 'IMPORTED',
}
