import { BadRequestException, HttpException, HttpStatus } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';

/** Node's own test for an expectation it handles itself (it answers 100 Continue). */
const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;

/**
 * The two checks Node would otherwise answer itself with a bare status line, no body, no security headers and no
 * log line (hardenHttp turns them off there): an HTTP/1.1 request without Host is a 400 (RFC 9112, 3.2), an
 * expectation other than 100-continue a 417 (RFC 9110, 10.1.1). Here they get the answer every error gets.
 */
export function checkHostAndExpect(req: Request, _res: Response, next: NextFunction): void {
  if (req.httpVersion !== '1.1') return next();
  if (req.headers.host === undefined) return next(new BadRequestException('An HTTP/1.1 request must have a Host header'));
  const expectation = req.headers.expect;
  if (expectation !== undefined && !CONTINUE.test(expectation)) {
    return next(
      new HttpException(`Expectation ${JSON.stringify(expectation)} is not supported; only 100-continue is`, HttpStatus.EXPECTATION_FAILED),
    );
  }
  next();
}
