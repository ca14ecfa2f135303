# syntax=docker/dockerfile:1
# The ticket service: build with the full toolchain, run on a slim image with production dependencies only.
ARG NODE_IMAGE=node:22-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM ${NODE_IMAGE} AS production-dependencies
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: no production dependency needs one, and none may phone home from a build. No optional
# packages either: the only ones are typescript and ts-node, optional peers of typeorm for its migration CLI.
RUN npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    SERVER_PORT=8080 \
    LOG_FORMAT=json \
    MANAGEMENT_HEALTH_PROBES_ENABLED=true
WORKDIR /app
# package.json travels along: it makes dist/*.js ES modules ("type": "module") and gives the version.
COPY package.json ./
COPY --from=production-dependencies /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The event contract, served at /asyncapi.yaml and /asyncapi.json.
COPY docs/asyncapi.yaml ./docs/asyncapi.yaml
# The SLA policy that SLA_POLICY_FILE defaults to (read only with SLA_ENABLED=true).
COPY config/sla-policy.yaml ./config/sla-policy.yaml
# The files stay root-owned: the service only reads them.
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.SERVER_PORT || 8080) + '/actuator/health/liveness', { signal: AbortSignal.timeout(2500) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form: node is PID 1 and receives SIGTERM itself (Nest's shutdown hooks drain requests and close connections).
CMD ["node", "dist/main.js"]
