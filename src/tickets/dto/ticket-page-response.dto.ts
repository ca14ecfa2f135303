import { ApiProperty } from '@nestjs/swagger';
import { TicketV2Response } from './ticket-v2-response.dto.js';

/** v2's list body: one page of tickets, where the next one starts, and how many match in all. */
export class TicketPageResponse {
  @ApiProperty({ description: 'The tickets of this page, in the requested order', type: [TicketV2Response] })
  items: TicketV2Response[];

  @ApiProperty({
    description: 'Pass as `cursor` (with the same filters and sort) for the next page; null on the last page',
    type: String,
    nullable: true,
    example: 'eyJxIjoiM2Z3c1F4d0p4ZzN3d2Q3QSIsImsiOls0Ml19.hA0m8ljf2P3YqJ4l',
  })
  nextCursor: string | null;

  @ApiProperty({ description: 'How many tickets match the filters; null with total=false', type: 'integer', nullable: true, example: 1234 })
  total: number | null;
}
