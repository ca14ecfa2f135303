import { BadRequestException } from '@nestjs/common';

/** The most ids a bulk change names; a filter has no limit. */
export const BULK_IDS_MAX = 100_000;

/** A bulk change as its job keeps it (`jobs.request`): checked when it was asked for. */
export interface StoredBulkRequest {
  ids?: number[];
  filter?: Record<string, string | string[]>;
  patch: Record<string, unknown>;
  comment?: { body: string; author?: string | null; visibility?: string };
}

/** The list parameters that shape a page, not which tickets match: not a filter. */
const NOT_FILTERS = ['sort', 'limit', 'cursor', 'total'];

/**
 * A job's filter as the list's query parameters: a scalar as its text, an array as repeated values (`status: ["OPEN",
 * "IN_PROGRESS"]` is `status=OPEN&status=IN_PROGRESS`). 400 for a key that pages or sorts, or a value of another shape.
 */
export function filterParameters(filter: Record<string, unknown>): Record<string, string | string[]> {
  const parameters: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(filter)) {
    if (NOT_FILTERS.includes(name))
      throw new BadRequestException(`filter.${name}: a bulk change takes the list's filters, not its sort or page`);
    const scalar = (item: unknown) => typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean';
    if (Array.isArray(value) && value.length > 0 && value.every(scalar)) parameters[name] = value.map(String);
    else if (scalar(value)) parameters[name] = String(value);
    else throw new BadRequestException(`filter.${name}: a value or a non-empty list of values`);
  }
  return parameters;
}
