import type { HealthIndicatorResult } from '@nestjs/terminus';

/** Spring Boot's statuses, in the order its default aggregator ranks them: the first one present wins. */
const STATUS_ORDER = ['DOWN', 'OUT_OF_SERVICE', 'UP', 'UNKNOWN'] as const;
export type SpringStatus = (typeof STATUS_ORDER)[number];

/**
 * Detail an indicator sets when its Spring status is neither UP nor DOWN (readiness' OUT_OF_SERVICE):
 * Terminus itself knows only up, degraded and down.
 */
export const SPRING_STATUS = 'springStatus';

export interface SpringComponent {
  status: SpringStatus;
  details?: Record<string, unknown>;
}

export interface SpringSystemHealth {
  status: SpringStatus;
  components: Record<string, SpringComponent>;
  groups?: string[];
}

type IndicatorDetail = HealthIndicatorResult[string];

/** One Terminus indicator result as a Spring health component; `details` only when there are any. */
export function toSpringComponent(result: IndicatorDetail): SpringComponent {
  const { status, [SPRING_STATUS]: springStatus, ...details } = result;
  const component: SpringComponent = { status: (springStatus as SpringStatus | undefined) ?? (status === 'down' ? 'DOWN' : 'UP') };
  if (Object.keys(details).length > 0) component.details = details;
  return component;
}

/** The worst status present, as Spring's SimpleStatusAggregator decides; UNKNOWN when there is none. */
export function aggregateStatus(statuses: SpringStatus[]): SpringStatus {
  return STATUS_ORDER.find((status) => statuses.includes(status)) ?? 'UNKNOWN';
}

/**
 * The `/actuator/health` body: components sorted by name (Spring keeps them in a TreeMap), overall status the
 * worst of all but the `informational` ones, `groups` only when there are groups.
 */
export function toSystemHealth(results: HealthIndicatorResult, informational: string[], groups: string[]): SpringSystemHealth {
  const names = Object.keys(results).sort();
  const components = Object.fromEntries(names.map((name) => [name, toSpringComponent(results[name])]));
  const counted = names.filter((name) => !informational.includes(name)).map((name) => components[name].status);
  const health: SpringSystemHealth = { status: aggregateStatus(counted), components };
  if (groups.length > 0) health.groups = groups;
  return health;
}

/**
 * What Spring shows when components or details are hidden (HealthEndpointSupport): without components the root
 * keeps only its status (and `groups`); without details each component keeps only its status.
 */
export function withoutHidden(
  health: SpringSystemHealth,
  shown: { components: boolean; details: boolean },
): SpringSystemHealth | Omit<SpringSystemHealth, 'components'> {
  if (!shown.components) {
    const { components: _hidden, ...rest } = health;
    return rest;
  }
  if (shown.details) return health;
  const components = Object.fromEntries(Object.entries(health.components).map(([name, { status }]) => [name, { status }]));
  return { ...health, components };
}

/** Spring's default mapping of a health status to an HTTP status. */
export function httpStatusOf(status: SpringStatus): number {
  return status === 'DOWN' || status === 'OUT_OF_SERVICE' ? 503 : 200;
}
