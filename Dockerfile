# mailroom: multi-stage build, non-root, one data volume, a health check (docs/operations.md, "Deploy").
#   docker build -t mailroom .
#   docker run -p 8080:8080 -v mailroom-data:/data mailroom
FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 compiles against Node's headers when no prebuilt binary fits.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts/build-console-assets.mjs scripts/bundle.mjs ./scripts/
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    MAILROOM_HOST=0.0.0.0 \
    MAILROOM_PORT=8080 \
    MAILROOM_INBOUND_SMTP_HOST=0.0.0.0 \
    MAILROOM_INBOUND_SMTP_PORT=2525 \
    MAILROOM_SUBMISSION_HOST=0.0.0.0 \
    MAILROOM_SUBMISSION_PORT=2587 \
    MAILROOM_DATABASE_URL=/data/mailroom.db
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
# The image's own user owns only the data volume (database, secret.key), created 0700.
RUN mkdir -p /data && chown node:node /data && chmod 0700 /data
USER node
VOLUME ["/data"]
EXPOSE 8080 2525 2587
# With MAILROOM_HTTP_TLS_CERT the API port speaks HTTPS; its certificate names a public host, not 127.0.0.1,
# so this probe of the container's own port does not verify it.
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "const s=process.env.MAILROOM_HTTP_TLS_CERT?'https':'http';require(s).get(s+'://127.0.0.1:'+(process.env.MAILROOM_PORT||8080)+'/readyz',{rejectUnauthorized:false},r=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1))"]
# SIGTERM drains (MAILROOM_SHUTDOWN_TIMEOUT_SECONDS, default 20): give `docker stop -t 30` or compose's
# stop_grace_period room for it.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "dist/cli.js"]
CMD ["serve"]
