import { ProblemTypeException } from '../common/errors/problem-type.exception.js';
import type { ProblemType } from '../common/errors/problem-details.js';

export const RESYNC_REQUIRED_TYPE = 'urn:problem-type:ticket-service/resync-required';

export const RESYNC_REQUIRED: ProblemType = { type: RESYNC_REQUIRED_TYPE, title: 'Resync required', members: {} };

/** 410: the consumer missed changes the feed no longer has; it re-reads the tickets and resumes from a fresh cursor. */
export function resyncRequired(detail: string): ProblemTypeException {
  return new ProblemTypeException(410, `${detail}; read the tickets afresh and resume from the newest cursor`, RESYNC_REQUIRED);
}
