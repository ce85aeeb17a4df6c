# The function image of knative/: every function's self-starting bundle in one image.
# Each Knative Service runs its own with `command: [node, /app/functions/<name>/server.js]`,
# so the image has no CMD. Build: docker build -t landscape-functions:0.1.0 .
#
# Node 24 (LTS, supported until 2028-04-30; Node 20 reached end of life on 2026-04-30). The
# bundles target node20 (local/bundle.ts), so the same code runs on the Node 20 of local
# development and on this image. Source maps: every bundle has its server.cjs.map beside it and
# NODE_OPTIONS turns them on, so a stack names the TypeScript file and line. NODE_OPTIONS also
# preloads /app/functions/preload.cjs (shared/serve/preload.ts; a Service's command names only its
# server.js): the orphan guard (a no-op without an IPC channel) and V8's code cache of the bundle,
# whose stacks the preload maps itself (shared/serve/stack-map.ts: Node maps only what its own
# loader compiled), and the replicas' V8 flags if any (shared/serve/v8-flags.ts: none today). The
# caches are trained in the final stage below with that stage's node and those flags (V8 takes a
# cache only from the same version and flags); the Services' readOnlyRootFilesystem keeps
# a replica from writing one.
#
# Stage 1: install (dev dependencies included: esbuild, tsx) and bundle. `npm run build` writes
# dist/functions/<name>/server.js — the handler, the Functions Framework and every dependency
# in one CommonJS file (server.cjs, which server.js loads), preload.cjs beside it — so the runtime stage needs no node_modules.
FROM node:24-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# npm workspaces (packages/*): npm ci links them, so their package.json files come first
COPY packages/apimachinery/package.json packages/apimachinery/
COPY packages/kube-apiserver/package.json packages/kube-apiserver/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build
# The event service of a Cloud Functions deployment (scripts/event-service/main.ts, deployed to
# Cloud Run by `npm run deploy:gcf`): one bundle too; it reads the manifests of knative/.
RUN npx esbuild scripts/event-service/main.ts --bundle --platform=node --format=esm --target=node20 \
      --sourcemap --log-level=warning --outfile=dist/events/main.js \
      "--banner:js=import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"

# Stage 2: Node and the bundles, nothing else, as a non-root user (65532, "nonroot").
FROM node:24-slim
ENV NODE_ENV=production
ENV NODE_OPTIONS="--enable-source-maps --require=/app/functions/preload.cjs"
WORKDIR /app
COPY --from=build --chown=65532:65532 /src/dist/functions /app/functions
COPY --from=build --chown=65532:65532 /src/dist/events /app/events
COPY --from=build --chown=65532:65532 /src/knative /app/knative
# V8's code cache of every bundle (scripts/train-code-cache.ts: one training start and one event
# each, server.cjs.codecache beside the bundle); the build fails when a bundle does not serve.
RUN node /app/functions/train.cjs /app/functions
USER 65532:65532
# PORT is set by Knative (8080 by default); the bundles listen on it.
EXPOSE 8080
