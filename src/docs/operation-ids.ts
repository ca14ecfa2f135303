import type { QueryDialect } from '../common/paging/query-parameters.js';

/**
 * The operationId of an operation that both versions have: v1's as named, v2's with `V2` appended, so that ids stay
 * unique in the document that holds both versions (generated clients name their functions and types after them).
 */
export function versionedOperationId(version: QueryDialect, name: string): string {
  return version === 'v1' ? name : `${name}V2`;
}
