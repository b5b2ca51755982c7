# hedgerow: one process, LMDB under /data, no other server needed.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
# The service only (tsconfig.build.json: src and workers): no tests, no benchmarks.
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY workers ./workers
RUN npx tsc -b tsconfig.build.json && rm dist/build.tsbuildinfo && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HEDGEROW_DATA=/data PORT=8000
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY assets ./assets
COPY web ./web
COPY package.json ./
RUN mkdir -p /data && chown node:node /data
VOLUME /data
EXPOSE 8000
USER node
ENTRYPOINT ["node", "dist/src/main.js"]
CMD ["serve"]
