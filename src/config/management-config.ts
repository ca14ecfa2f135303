/** Whether an actuator endpoint is served over HTTP, as Spring's management.endpoints.web.exposure.include says. */
export function isEndpointExposed(include: readonly string[], endpoint: string): boolean {
  return include.includes('*') || include.includes(endpoint);
}
