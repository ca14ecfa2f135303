import { ApiProperty } from '@nestjs/swagger';
import { HistoryEntryResponse } from './history-entry-response.dto.js';

/** v2's history body: one page of entries, oldest first, and where the next page starts. */
export class HistoryPageResponse {
  @ApiProperty({ description: 'The entries of this page, oldest first', type: [HistoryEntryResponse] })
  items: HistoryEntryResponse[];

  @ApiProperty({
    description: 'Pass as `cursor` for the next page; null on the last page',
    type: String,
    nullable: true,
    example: 'eyJxIjoi…',
  })
  nextCursor: string | null;
}
