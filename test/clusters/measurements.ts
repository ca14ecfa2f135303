/** Prints what a cluster test measured, one JSON line each, so a CI log carries the numbers behind docs/operations.md. */
export function reportMeasurement(name: string, values: object): void {
  process.stdout.write(`cluster measurement ${JSON.stringify({ name, ...values })}\n`);
}
