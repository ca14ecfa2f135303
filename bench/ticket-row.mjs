// The ceiling's own row mapping: independent of the service's code on purpose, so the
// benchmark compares against work written without the framework's help.
export const COLUMNS = 'id, title, description, status, priority, requester_email, assigned_to, created_at, updated_at, resolved_at';

export function toTicket(row) {
  return {
    id: Number(row.id),
    title: row.title,
    description: row.description,
    status: row.status,
    priority: row.priority,
    requesterEmail: row.requester_email,
    assignedTo: row.assigned_to,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    resolvedAt: row.resolved_at,
  };
}
