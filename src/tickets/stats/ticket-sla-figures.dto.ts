import { ApiProperty } from '@nestjs/swagger';
import { TicketPriority } from '../ticket-priority.enum.js';

/** One SLA metric's figures for the matching tickets of one priority. */
export class SlaMetricFigures {
  @ApiProperty({ enum: ['firstResponse', 'resolution'] })
  metric: 'firstResponse' | 'resolution';

  @ApiProperty({ enum: TicketPriority, enumName: 'TicketPriority', description: "The tickets' priority now" })
  priority: TicketPriority;

  @ApiProperty({ description: 'Matching tickets of the priority with a clock of the metric', example: 40 })
  tickets: number;

  @ApiProperty({ description: 'Of those, the tickets whose clocks of the metric have all stopped (answered; resolved)', example: 35 })
  completed: number;

  @ApiProperty({ description: 'Completed tickets none of whose clocks of the metric breached', example: 31 })
  met: number;

  @ApiProperty({ description: 'Tickets with a clock of the metric that breached, completed or not', example: 6 })
  breached: number;

  @ApiProperty({ type: Number, nullable: true, description: 'met / completed; null when none completed', example: 0.886 })
  metShare: number | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: "Median business time of the completed tickets' clocks (all cycles of the metric), in milliseconds",
    example: 5_400_000,
  })
  medianMs: number | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'The 90th percentile of the same (nearest rank), in milliseconds',
    example: 14_400_000,
  })
  p90Ms: number | null;
}

/** GET /api/v2/tickets/stats/sla: how the matching tickets fared against their SLA goals. */
export class TicketSlaFiguresResponse {
  @ApiProperty({ description: "How many tickets match the filters: the list's total for the same filters", example: 120 })
  total: number;

  @ApiProperty({
    type: [SlaMetricFigures],
    description: 'By metric, then priority (LOW to CRITICAL); a priority without a clock of the metric is absent',
  })
  figures: SlaMetricFigures[];
}
