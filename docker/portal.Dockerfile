# Portal image for real deployments (docker-compose.yml). Not buildable on the
# development machines of this project (no Docker engine there).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY . .
ENV PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 NEXT_TELEMETRY_DISABLED=1
RUN npm ci --no-audit --no-fund && npm run build -w apps/portal

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1
COPY --from=build /app /app
EXPOSE 3000
# Applies migrations, then serves the portal against $DATABASE_URL.
CMD ["npx", "tsx", "scripts/start.ts"]
