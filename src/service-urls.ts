import { OPENAPI_PATHS } from './docs/openapi.setup.js';

/** The addresses a person needs first, for the start-up line. */
export interface ServiceUrls {
  api: string;
  swaggerUi: string;
  /** Absent when the health endpoint is not exposed (MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE). */
  health?: string;
}

export function serviceUrls(port: number, healthExposed: boolean): ServiceUrls {
  // The server listens on every interface; localhost is the address that works on the machine itself.
  const base = `http://localhost:${port}`;
  return {
    api: `${base}/api/tickets`,
    swaggerUi: `${base}${OPENAPI_PATHS.uiLegacy}`,
    ...(healthExposed ? { health: `${base}/actuator/health` } : {}),
  };
}

/** One line: the port, then where the API, its documentation and the health endpoint answer. */
export function listeningMessage(port: number, urls: ServiceUrls): string {
  const parts = [`API ${urls.api}`, `Swagger UI ${urls.swaggerUi}`, ...(urls.health ? [`health ${urls.health}`] : [])];
  return `Ticket service listening on port ${port}: ${parts.join(', ')}`;
}
