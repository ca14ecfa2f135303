import { ApiProperty } from '@nestjs/swagger';
import { ChangeItemResponse } from './change-item-response.dto.js';

/** One read of the change feed. */
export class ChangePageResponse {
  @ApiProperty({
    description: "The changes after the position asked for, in feed order (each ticket's in commit order)",
    type: [ChangeItemResponse],
  })
  items: ChangeItemResponse[];

  @ApiProperty({ description: 'Pass as `after` to read on; never null (with no items, the position the read ended at)' })
  nextCursor: string;

  @ApiProperty({ description: 'True when no more changes followed at the time of the read: wait (or long-poll) before reading on' })
  endOfStream: boolean;
}
