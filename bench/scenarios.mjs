// The benchmark's scenarios as autocannon request plans. Each is run against the service and the baseline
// with the same plan. Writes never create OPEN tickets, so the `?status=OPEN` list keeps its size.

const JSON_HEADERS = { 'content-type': 'application/json' };

function ticketBody(status) {
  return JSON.stringify({
    title: 'VPN drops every hour',
    description: 'The VPN client disconnects at the top of every hour.',
    status,
    priority: 'HIGH',
    requesterEmail: 'jane.doe@example.com',
    assignedTo: 'network-team',
  });
}

const randomId = (count) => 1 + Math.floor(Math.random() * count);

const create = { method: 'POST', path: '/api/tickets', headers: JSON_HEADERS, body: ticketBody('IN_PROGRESS') };
export const createRequest = () => ({ ...create });
const update = (count) => ({
  method: 'PUT',
  path: `/api/tickets/${randomId(count)}`,
  headers: JSON_HEADERS,
  body: ticketBody('WAITING_ON_CUSTOMER'),
});
export const readRequest = (count) => read(count);
const read = (count) => ({ method: 'GET', path: `/api/tickets/${randomId(count)}`, headers: {}, body: undefined });

/** One request of the mixed scenario: 70 % GET by id, 20 % POST, 10 % PUT. */
export function mixedRequest(seeded) {
  const dice = Math.random();
  return dice < 0.7 ? read(seeded) : dice < 0.9 ? createRequest() : update(seeded);
}

export function fullListScenario(rows) {
  return { name: `GET full list (${rows} rows)`, connections: 4, sampleMemory: true, requests: [{ method: 'GET', path: '/api/tickets' }] };
}

/** In run order: the reads come first, while the table holds exactly the seeded tickets. */
export function scenarios(seeded) {
  return [
    { name: 'GET by id', connections: 64, requests: [{ setupRequest: (req) => ({ ...req, ...read(seeded) }) }] },
    {
      name: `GET list ?status=OPEN (~${seeded / 10} rows)`,
      connections: 16,
      requests: [{ method: 'GET', path: '/api/tickets?status=OPEN' }],
    },
    fullListScenario(seeded),
    { name: 'POST create', connections: 64, requests: [create] },
    {
      name: 'mixed 70/20/10',
      connections: 64,
      requests: [{ setupRequest: (req) => ({ ...req, ...mixedRequest(seeded) }) }],
    },
  ];
}
