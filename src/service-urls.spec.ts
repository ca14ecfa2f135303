import { listeningMessage, serviceUrls } from './service-urls.js';

describe('the start-up line', () => {
  it('names the port, the API base, Swagger UI and health', () => {
    expect(listeningMessage(8080, serviceUrls(8080, true))).toBe(
      'Ticket service listening on port 8080: API http://localhost:8080/api/tickets, ' +
        'Swagger UI http://localhost:8080/swagger-ui.html, health http://localhost:8080/actuator/health',
    );
  });

  it('leaves health out when the health endpoint is not exposed', () => {
    expect(serviceUrls(9000, false)).toEqual({
      api: 'http://localhost:9000/api/tickets',
      swaggerUi: 'http://localhost:9000/swagger-ui.html',
    });
    expect(listeningMessage(9000, serviceUrls(9000, false))).not.toMatch(/health/);
  });
});
