export interface Link {
  href: string;
  templated: boolean;
}

/** Spring's `/actuator` discovery body: itself, then each exposed endpoint, hrefs on the address the client used. */
export function actuatorLinks(baseUrl: string, isExposed: (endpoint: string) => boolean): { _links: Record<string, Link> } {
  const link = (path: string, templated = false): Link => ({ href: `${baseUrl}${path}`, templated });
  const links: Record<string, Link> = { self: link('') };
  if (isExposed('health')) {
    links.health = link('/health');
    links['health-path'] = link('/health/{*path}', true);
  }
  if (isExposed('info')) links.info = link('/info');
  if (isExposed('prometheus')) links.prometheus = link('/prometheus');
  return { _links: links };
}
