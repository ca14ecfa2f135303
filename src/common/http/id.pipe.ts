import { BadRequestException, Injectable, type PipeTransform } from '@nestjs/common';

const MAX_BIGINT = 9_223_372_036_854_775_807n;

/** Whether the text is an id: a positive 64-bit integer, written without sign or leading zeros. */
export function isId(value: string): boolean {
  return /^[1-9][0-9]{0,18}$/.test(value) && BigInt(value) <= MAX_BIGINT;
}

/** An id in a path (a ticket's, a comment's) is a positive 64-bit integer; anything else is a 400, never a database query. */
@Injectable()
export class IdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!isId(value)) {
      throw new BadRequestException(
        `Failed to convert value of type 'java.lang.String' to required type 'java.lang.Long'; For input string: ${JSON.stringify(value)}`,
      );
    }
    return value;
  }
}
