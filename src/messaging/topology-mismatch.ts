/** The queue exists on the broker with other arguments than this service declares (type, length, TTL, …). */
export class TopologyMismatchError extends Error {}

/**
 * Turns the broker's PRECONDITION_FAILED answer to a queue declaration into a message that names the queue and the
 * mismatch, e.g. `inequivalent arg 'x-queue-type' for queue 'ticket.queue' in vhost '/': received the value
 * 'quorum' of type 'longstr' but current is none`; undefined for any other error.
 */
export function topologyMismatch(error: unknown, queue: string): TopologyMismatchError | undefined {
  const message = error instanceof Error ? error.message : String(error);
  const detail = /PRECONDITION_FAILED - (inequivalent arg .*?)"?$/.exec(message)?.[1];
  if (!detail) return undefined;
  return new TopologyMismatchError(
    `RabbitMQ queue '${queue}' exists with other arguments than configured (${detail}); ` +
      'delete the queue or set RABBITMQ_QUEUE_TYPE / RABBITMQ_QUEUE_* to match it',
  );
}
