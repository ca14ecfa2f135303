/** `<ErrorClass>: <message>`, the form Spring gives a failed component's `error` detail; also used in log lines. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const name = error.name !== 'Error' ? error.name : error.constructor.name;
  return `${name}: ${error.message}`;
}
