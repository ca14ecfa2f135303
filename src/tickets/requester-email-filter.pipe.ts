import { Injectable, type PipeTransform } from '@nestjs/common';

/** The optional `requesterEmail` filter: empty counts as absent, a repeated parameter uses its first value. */
@Injectable()
export class RequesterEmailFilterPipe implements PipeTransform<unknown, string | undefined> {
  transform(value: unknown): string | undefined {
    const first = Array.isArray(value) ? value[0] : value;
    return typeof first === 'string' && first !== '' ? first : undefined;
  }
}
