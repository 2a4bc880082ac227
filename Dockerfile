# syntax=docker/dockerfile:1
# Crateflow as a container image. No image is built in CI (no container engine runs there): the test
# test/e2e/container-recipe.test.ts runs this file's build and runtime steps on the machine, starts the resulting
# tree and runs the HEALTHCHECK below, and .ci/run lints this file. Keep to the instructions that test reads
# (ARG, FROM, WORKDIR, ENV, COPY, RUN, USER, VOLUME, EXPOSE, HEALTHCHECK, CMD).

# The Node release CI also runs the whole quick suite on (.ci/run, NODE_VERSIONS): change both together.
ARG NODE_VERSION=24.21.0

# --- build: a production install and the esbuild bundle ---------------------------------------------------------
FROM node:${NODE_VERSION}-bookworm-slim AS build
# The SQLite driver is a native addon in two lines (core/sqlite/sqlite-driver.ts): Node 22 and later load
# better-sqlite3 13, a Node-API build shipped ready-made; Node 20 loads better-sqlite3 12, which npm ci compiles with
# node-gyp (it is installed, and compiled, under any Node), which needs these. Only this stage has them; the runtime
# stage gets the addons inside node_modules.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Manifests first, so the install layer is reused until a dependency changes. npm ci needs the package.json of
# every workspace; the plugin folders are small, so they come whole.
COPY package.json package-lock.json ./
COPY sdk/package.json sdk/
COPY core/package.json core/
COPY node-red-nodes/package.json node-red-nodes/
COPY plugins/ plugins/
# The bundle needs only esbuild, a production dependency: no development tools are installed (as for npm start).
# Of each driver only what runs is kept: of 12's build the addon itself, without the SQLite sources and the
# compiler's intermediate files (some 28 MB); of 13 the Linux builds, without its sources (some 20 MB).
RUN npm ci --omit=dev --no-audit --no-fund \
  && cd node_modules/better-sqlite3 \
  && mv build/Release/better_sqlite3.node . \
  && rm -rf build deps src \
  && mkdir -p build/Release \
  && mv better_sqlite3.node build/Release/ \
  && cd ../better-sqlite3-napi \
  && rm -rf deps src binding.gyp prebuilds/darwin-* prebuilds/win32-*
COPY . .
# dist/crateflow.mjs with the UI files beside it, and sdk/dist for third-party plugins.
RUN npm run build

# --- runtime: the bundle and what it loads at run time, owned by root, run as the unprivileged `node` user ------
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production
ENV CRATEFLOW_CONFIG=/config/config.yaml
WORKDIR /app
# The bundle leaves out undici (loaded on the first outbound request), the SQLite drivers (their addons built in
# the build stage for this same Node, or shipped built) and the UI's ES modules (served from node_modules);
# third-party plugins import @crateflow/sdk, which resolves to sdk/dist.
COPY --from=build /src/package.json /src/package-lock.json ./
COPY --from=build /src/node_modules/ node_modules/
COPY --from=build /src/sdk/package.json sdk/
COPY --from=build /src/sdk/dist/ sdk/dist/
COPY --from=build /src/dist/ dist/
# A working default: blackhole downloads and the store under /data, the library at /music. Mount your own
# /config (see examples/container/ and compose.yaml) to change it.
COPY examples/container/config.yaml /config/config.yaml
# A named volume takes the owner of the folder it is mounted on: /data must exist and belong to the service user.
# /app stays the root's and read-only to the service, its code cache folder too: the service runs uncached here
# rather than keep bytecode that it could rewrite and that later starts would run (core/build/code-cache-entry.mjs).
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data", "/config"]
EXPOSE 8080
# Node itself, as slim images have no curl. /health answers every Host, and 200 even when slskd or Navidrome is
# down (the body says "degraded"), so the container is not restarted for another service's outage.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/health', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))"]
# The bundle directly, not `npm start`: nothing is rebuilt at start (the tree is read-only to the service user)
# and SIGTERM reaches the service, which then finishes requests and flushes the store. The young generation is
# kept small, as `npm start` keeps it (README: Small machines).
CMD ["node", "--max-semi-space-size=2", "dist/crateflow.mjs"]
