/** Who may read a comment: everyone who sees the ticket, or the desk only. */
export enum CommentVisibility {
  PUBLIC = 'PUBLIC',
  INTERNAL = 'INTERNAL',
}
