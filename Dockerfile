# syntax=docker/dockerfile:1
# Build the single binary with the pinned Bun from npm, then ship it alone on a slim base.
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json .npmrc bunfig.toml ./
# stand-ins for helia's libp2p/bitswap/http (package.json overrides), needed by npm ci
COPY npm-stubs ./npm-stubs
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts ./scripts
COPY src ./src
COPY migrations ./migrations
COPY ui ./ui
RUN npm run build && ./dist/taskgate version

FROM debian:bookworm-slim
# /keys: where replicas mount their shared keys (TASKGATE_KEYS_DIR; deploy/compose.yaml)
RUN useradd --system --uid 10001 --home-dir /data --shell /usr/sbin/nologin taskgate \
 && mkdir -p /data /keys && chown taskgate:taskgate /data /keys
COPY --from=build /src/dist/taskgate /usr/local/bin/taskgate
USER taskgate
ENV TASKGATE_DATA_DIR=/data \
    TASKGATE_HOST=0.0.0.0 \
    TASKGATE_PORT=8787
VOLUME ["/data"]
EXPOSE 8787
ENTRYPOINT ["/usr/local/bin/taskgate"]
CMD ["serve"]
