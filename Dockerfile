# syntax=docker/dockerfile:1
# Multi-stage image: build (TypeScript, generated Prisma client) then a slim runtime with production
# dependencies only, run as the unprivileged `node` user. Migrations are applied at start-up.

# Node 22 (maintenance LTS until 2027-04-30): Node 20 reached its end of life on 2026-04-30. The
# suite runs on both (.ci/run); on 22 the same code answers GraphQL for 15-19 % less CPU per report
# (bench/HISTORY.md, 2026-11-28, 06:26).
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
COPY scripts ./scripts
# postinstall runs `prisma generate` offline (scripts/prisma-generate.mjs)
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:22-bookworm-slim AS runtime
# A larger young generation: a page of reports allocates a few MB, and with V8's default 16 MB
# semi-space most of it was scavenged and promoted (GC was 20-27% of a request's CPU; see
# bench/HISTORY.md, 2026-11-25). Costs ~100 MB more RSS at most.
# AsyncContextFrame (Node 24's default): with tracing on, a request's context follows its promises
# without a hook run for every promise (docs/performance.md, "Tracing overhead"). The benchmarks
# read NODE_OPTIONS and MALLOC_* from this ENV (bench/measure.ts) to run the service as the image does.
# Two glibc malloc arenas instead of 8 per core: after a flood of large refused bodies, memory the
# process had freed stayed resident; with two, RSS came back near idle (docs/deploy.md, "N6 five
# times").
ENV NODE_ENV=production \
    NODE_OPTIONS="--max-semi-space-size=64 --experimental-async-context-frame" \
    MALLOC_ARENA_MAX=2 \
    PORT=4000 \
    DATA_DIR=/data
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: the Prisma client was generated in the build stage and is part of dist/.
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force \
 && mkdir -p /data && chown node:node /data
COPY --from=build /app/dist ./dist
COPY prisma ./prisma
USER node
EXPOSE 4000
VOLUME ["/data"]
# Liveness of the API process. A container started with another command (the worker has no HTTP
# server) must disable or replace it, as docker-compose.yml does.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||4000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# The API. Other entry points of the same image (docs/deploy.md):
#   node dist/src/app/worker.js   outbox dispatcher (API instances then RUN_DISPATCHER=false)
#   node dist/src/app/migrate-cli.js          apply pending migrations and exit (a release job)
#   node dist/src/admin/cli.js <command>     admin CLI (keys, quotas, imports)
CMD ["node", "dist/src/app/main.js"]
