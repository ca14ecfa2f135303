import { BadRequestException, Injectable, type PipeTransform } from '@nestjs/common';
import { TicketStatus } from './ticket-status.enum.js';

/**
 * The optional `status` query filter: an empty value counts as absent; a repeated parameter uses its
 * first value (as Spring binds a single-valued parameter); anything outside the enum is a 400.
 */
@Injectable()
export class TicketStatusFilterPipe implements PipeTransform<unknown, TicketStatus | undefined> {
  transform(value: unknown): TicketStatus | undefined {
    const first = Array.isArray(value) ? value[0] : value;
    if (first === undefined || first === '') return undefined;
    if (typeof first === 'string' && (Object.values(TicketStatus) as string[]).includes(first)) {
      return first as TicketStatus;
    }
    throw new BadRequestException(
      `Failed to convert value of type 'java.lang.String' to required type 'TicketStatus'; No enum constant TicketStatus.${String(first)}`,
    );
  }
}
