import { ApiProperty } from '@nestjs/swagger';
import { HistoryAction } from '../../tickets/history-action.js';
import type { HistoryEntryHeader } from '../../tickets/history-entry.js';
import type { FieldChange } from '../../tickets/ticket-changes.js';

/** One entry of a ticket's audit trail; `changes` as the wire has them, whatever the action (HistoryChange types them by it). */
export class HistoryEntryResponse implements HistoryEntryHeader {
  @ApiProperty({ description: 'Increases with every entry', type: 'integer', format: 'int64', example: 7 })
  id: number;

  @ApiProperty({ type: 'integer', format: 'int64', example: 42 })
  ticketId: number;

  @ApiProperty({
    description: 'When the write happened, UTC with milliseconds',
    type: String,
    format: 'date-time',
    example: '2026-11-22T20:37:14.123Z',
  })
  occurredAt: Date;

  @ApiProperty({
    description: 'Who made the write: the authenticated subject once authentication exists; null until then',
    type: String,
    nullable: true,
    example: null,
  })
  actor: string | null;

  @ApiProperty({ enum: HistoryAction, enumName: 'HistoryAction', example: HistoryAction.UPDATED })
  action: HistoryAction;

  @ApiProperty({
    description:
      'Each field the write actually changed, as `{"from": …, "to": …}` in the values the API serves (timestamps as ISO-8601 strings). ' +
      'A create lists its fields from null; an update that changes nothing else still changes `updatedAt`; `resolvedAt` appears when ' +
      "the update sets it. A COMMENTED entry holds `comment` from null to the new comment's id.",
    type: 'object',
    additionalProperties: {
      type: 'object',
      required: ['from', 'to'],
      properties: { from: { description: 'The value before the write (null: none)' }, to: { description: 'The value after it' } },
    },
    example: { status: { from: 'OPEN', to: 'RESOLVED' }, updatedAt: { from: '2026-11-22T20:37:14.123Z', to: '2026-11-23T08:00:00.000Z' } },
  })
  changes: Record<string, FieldChange>;
}
