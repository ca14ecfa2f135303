import { ApiProperty } from '@nestjs/swagger';
import { SLA_METRICS, SLA_PRIORITIES } from '../sla-policy.js';

export class SlaCycleResponse {
  @ApiProperty({ description: 'The cycle number, from 1; resolution starts a new cycle on each reopen', example: 1 })
  cycle: number;

  @ApiProperty({ type: String, format: 'date-time', example: '2026-11-23T08:00:00.000Z' })
  startTime: string;

  @ApiProperty({ type: String, format: 'date-time', example: '2026-11-23T12:30:00.000Z' })
  stopTime: string;

  @ApiProperty({ description: 'Whether the time spent reached the goal', example: false })
  breached: boolean;

  @ApiProperty({ description: 'The goal the cycle ran against (ISO-8601 business time)', example: 'PT8H' })
  goal: string;

  @ApiProperty({ description: 'Business time spent (ISO-8601)', example: 'PT3H30M' })
  elapsedTime: string;
}

export class SlaOngoingCycleResponse {
  @ApiProperty({ example: 2 })
  cycle: number;

  @ApiProperty({ type: String, format: 'date-time', example: '2026-11-24T09:00:00.000Z' })
  startTime: string;

  @ApiProperty({
    description: 'When the goal is (or was) reached while the clock runs; null while paused',
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2026-11-25T09:00:00.000Z',
  })
  breachTime: string | null;

  @ApiProperty({ example: false })
  breached: boolean;

  @ApiProperty({ description: 'Paused while the ticket is WAITING_ON_CUSTOMER (resolution only)', example: false })
  paused: boolean;

  @ApiProperty({ description: "Whether now is inside the calendar's hours", example: true })
  withinCalendarHours: boolean;

  @ApiProperty({ example: 'PT8H' })
  goal: string;

  @ApiProperty({ example: 'PT1H2M' })
  elapsedTime: string;

  @ApiProperty({ description: 'Negative once breached', example: 'PT6H58M' })
  remainingTime: string;
}

export class SlaMetricResponse {
  @ApiProperty({ enum: SLA_METRICS, example: 'resolution' })
  name: string;

  @ApiProperty({ description: "The goal of the ticket's current priority", example: 'PT8H' })
  goal: string;

  @ApiProperty({ type: SlaOngoingCycleResponse, nullable: true })
  ongoingCycle: SlaOngoingCycleResponse | null;

  @ApiProperty({ type: SlaCycleResponse, isArray: true })
  completedCycles: SlaCycleResponse[];
}

/** A ticket's SLA clocks, in Jira Service Management's shape. */
export class SlaResponse {
  @ApiProperty({ enum: SLA_PRIORITIES, example: 'HIGH' })
  priority: string;

  @ApiProperty({ description: "The calendar of the ticket's priority in the policy file", example: 'office' })
  calendar: string;

  @ApiProperty({ type: SlaMetricResponse, isArray: true })
  metrics: SlaMetricResponse[];
}
