import { HttpException } from '@nestjs/common';
import type { ProblemType } from './problem-details.js';

/**
 * An error of a problem type of its own: v1 renders its status and message like any other error's, v2 its
 * problem type, title and members besides.
 */
export class ProblemTypeException extends HttpException {
  constructor(
    status: number,
    message: string,
    readonly problem: ProblemType,
  ) {
    super(message, status);
  }
}
