import type { Request } from 'express';

/** The organization a requester belongs to, as it was when their request arrived. */
export interface ViewerOrganization {
  readonly id: number;
  /** Its members read each other's tickets. */
  readonly sharedTickets: boolean;
  /** Its members also comment on each other's tickets (with sharedTickets). */
  readonly sharedComments: boolean;
}

/** A person a requester token acts for: their canonical address, its domain, and their organization if any. */
export interface RequesterViewer {
  readonly kind: 'requester';
  readonly email: string;
  readonly domain: string;
  readonly organization: ViewerOrganization | null;
}

/**
 * Whose eyes a request reads with: the desk's (agents, integrations, and every request when tokens are off), which see
 * everything, or a requester's, which see what src/people/visibility.ts selects.
 */
export type Viewer = { readonly kind: 'desk' } | RequesterViewer;

export const DESK: Viewer = { kind: 'desk' };

const VIEWER = Symbol('viewer');

type WithViewer = Request & { [VIEWER]?: Viewer };

/** The request's viewer (set by the ticket gate for requester tokens); the desk's when none was set. */
export function viewerOf(request: Request): Viewer {
  return (request as WithViewer)[VIEWER] ?? DESK;
}

export function setViewer(request: Request, viewer: Viewer): void {
  (request as WithViewer)[VIEWER] = viewer;
}

export function isRequester(viewer: Viewer): viewer is RequesterViewer {
  return viewer.kind === 'requester';
}
