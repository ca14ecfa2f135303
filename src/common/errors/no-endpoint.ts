/** What an unknown (or unexposed) path answers with its 404, as Spring's NoResourceFoundException words it. */
export function noEndpointMessage(method: string, path: string): string {
  return `No endpoint ${method} ${JSON.stringify(path)}.`;
}
