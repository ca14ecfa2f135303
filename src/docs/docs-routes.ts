import { Injectable, type OnModuleInit } from '@nestjs/common';

/**
 * Mounts the documentation's routes (Swagger UI, the OpenAPI and AsyncAPI documents) while the application
 * initialises, right after the API's own routes and before the handlers of unknown paths and errors: Express tries
 * routes in the order they were added, so mounted earlier, they would be tried first by every API request.
 */
@Injectable()
export class DocsRoutes implements OnModuleInit {
  private mount?: () => void;
  private initialised = false;

  /** Called before the application initialises (setupApp): mounted later, the routes would sit behind the 404 handler. */
  mountAfterApi(mount: () => void): void {
    if (this.initialised) throw new Error('The documentation routes must be set up before the application initialises');
    this.mount = mount;
  }

  onModuleInit(): void {
    this.initialised = true;
    this.mount?.();
  }
}
