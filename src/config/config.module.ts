import { ConfigModule } from '@nestjs/config';
import { type AppConfig, parseConfig } from './app-config.js';

let settings: AppConfig | undefined;

/**
 * The settings (environment over .env), validated by parseConfig. ConfigModule.forRoot reads and validates them
 * when it is called, as this file loads, and answers a promise of the module: main.ts awaits it before anything
 * else, so an invalid setting ends start-up with one line naming it however the Node version orders module
 * loading and rejection handling (on Node 22 it would otherwise reach Nest's own error handler first).
 */
export const configModule = ConfigModule.forRoot({ isGlobal: true, cache: true, validate: (raw) => (settings = parseConfig(raw)) });

/** The settings configModule validated, once it has (for start-up checks that run before Nest starts). */
export async function validatedSettings(): Promise<AppConfig> {
  await configModule;
  return settings!;
}
