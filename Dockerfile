# The function image of knative/: every function's self-starting bundle in one image.
# Each Knative Service runs its own with `command: [node, /app/functions/<name>/server.js]`,
# so the image has no CMD. Build: docker build -t landscape-functions:0.1.0 .
#
# Stage 1: install (dev dependencies included: esbuild, tsx) and bundle. `npm run build` writes
# dist/functions/<name>/server.js — the handler, the Functions Framework and every dependency
# in one file — so the runtime stage needs no node_modules.
FROM node:20-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# Stage 2: Node and the bundles, nothing else, as a non-root user (65532, "nonroot").
FROM node:20-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=65532:65532 /src/dist/functions /app/functions
USER 65532:65532
# PORT is set by Knative (8080 by default); the bundles listen on it.
EXPOSE 8080
