# syntax=docker/dockerfile:1
# Multi-stage: build (compiler toolchain, dev dependencies) → runtime (production dependencies only, non-root).

FROM node:24.11.1-bookworm-slim AS build
# better-sqlite3 compiles from source when no prebuilt binary matches.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY explorer ./explorer
# The explorer page (GET /explore) is bundled into dist/explorer by esbuild, a dev dependency: before the prune.
RUN npx tsc -p tsconfig.build.json && node explorer/build.mjs && npm prune --omit=dev

FROM node:24.11.1-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 SQLITE_PATH=/data/idlink.sqlite
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json openapi.yaml ./
COPY cypher ./cypher
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"]
# node is PID 1 here: it handles SIGTERM itself (graceful stop in src/main.ts). The V8 flags are those of `npm start`.
CMD ["node", "--max-semi-space-size=16", "dist/main.js"]
