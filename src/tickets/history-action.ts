/** What a history entry records: a ticket's create, one of its updates (PUT or PATCH), or a comment added. */
export enum HistoryAction {
  CREATED = 'CREATED',
  UPDATED = 'UPDATED',
  COMMENTED = 'COMMENTED',
}
