# Shortlink's container image (docs/operations.md, Containers). Two stages: the first installs
# every dependency, compiles better-sqlite3 and builds the service, the dashboard and the docs;
# the second ships only what `shortlink serve` reads, and runs it as the base image's user `node`.
#
#   docker build -t shortlink .
#   docker run -p 8443:8443 -v shortlink-data:/data shortlink

FROM node:20-bookworm-slim AS build
# node-gyp's tools, for better-sqlite3 when no prebuilt binary can be fetched for this platform.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# The dependencies first, in a layer of their own that a change to the sources does not undo.
# Without scripts, npm ci would otherwise run the package's `prepare` before the sources are here.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts \
  && npm_config_nodedir=/usr/local npm rebuild better-sqlite3
COPY . .
RUN npm run -s build && npm run -s build:web && REDOCLY_TELEMETRY=off npm run -s docs \
  && npm prune --omit=dev --no-audit --no-fund \
  # better-sqlite3 needs its compiled addon and its JavaScript, not its sources or build tree.
  && cd node_modules/better-sqlite3 \
  && find build -mindepth 1 -not -path 'build/Release' -not -path 'build/Release/better_sqlite3.node' -delete \
  && rm -rf deps src docs

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
  DATA_DIR=/data \
  PORT=8443
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/bin bin
COPY --from=build /app/dist dist
COPY --from=build /app/generated generated
COPY --from=build /app/src/platform/v8-shapes.mjs src/platform/v8-shapes.mjs
COPY deploy/container/healthcheck.mjs deploy/container/healthcheck.mjs
# The data directory (SQLite database, master key, hosted assets) belongs to the user the
# service runs as; a volume mounted there takes this ownership when it is new.
RUN mkdir /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 8443
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "deploy/container/healthcheck.mjs"]
# `serve` drains its connections and writes the clicks it holds on SIGTERM, the signal
# `docker stop` sends; the default 10 s before SIGKILL is enough for it.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "--min-semi-space-size=16", "bin/shortlink.mjs"]
CMD ["serve"]
