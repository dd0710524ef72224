# traffic-counter image: `docker compose up` (see docker-compose.yml and README, "Docker").
# Debian (glibc) base: better-sqlite3, zeromq, sharp and @julusian/jpeg-turbo install prebuilt binaries there
# for x64 and arm64.
FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 downloads its prebuilt binary from GitHub's releases; where it cannot (no route to github.com,
# a rate limit, another CPU) it compiles, which needs these. Build stage only: the final image has none.
# (Versions not pinned: Debian's stable mirror replaces them, and a pinned one would stop the build.)
# hadolint ignore=DL3008
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
# ... against the headers the node image ships, not ones downloaded from nodejs.org.
ENV npm_config_nodedir=/usr/local
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY bench ./bench
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# Counts live in /data (a volume). The daemon runs as the image's unprivileged `node` user (uid and gid 1000),
# given by number so that a host can resolve it.
RUN mkdir -p /data && chown node:node /data
USER 1000:1000
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/api/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "dist/src/cli/main.js"]
# Without a config, `run` counts the built-in simulated camera (a demo); docker-compose.yml passes yours.
CMD ["run", "--db", "/data/counts.db", "--http", "8080", "--http-host", "0.0.0.0"]
