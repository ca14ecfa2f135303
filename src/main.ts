// Tracing, when MANAGEMENT_TRACING_ENABLED=true, patches http, express and mysql2 as they are loaded: it starts first
// (an imported module's top-level await completes before the code below runs), and only then is the application
// loaded. With tracing off tracing.register.js loads nothing of OpenTelemetry.
import './observability/tracing.register.js';

await import('./bootstrap.js');
