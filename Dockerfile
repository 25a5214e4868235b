# Self-hosting image: the web app and the casus binary (which embeds migrations,
# seed content and the legal codes). Used by compose.yaml.
FROM node:20-bookworm AS web
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY frontend/ ./
RUN npm run build

FROM golang:1.26-bookworm AS server
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /casus ./server/cmd/casus

FROM debian:bookworm-slim
RUN useradd --system --home /var/lib/casus casus && mkdir -p /var/lib/casus && chown casus /var/lib/casus
COPY --from=server /casus /usr/local/bin/casus
COPY --from=web /src/frontend/dist /srv/casus/web
USER casus
WORKDIR /var/lib/casus
# Production unless told otherwise: a real JWT_SECRET and SMTP are required, no dev outbox.
ENV CASUS_ENV=production FRONTEND_DIR=/srv/casus/web CASUS_STATE_DIR=/var/lib/casus CASUS_ADDR=:8080
EXPOSE 8080
ENTRYPOINT ["casus"]
CMD ["serve", "--seed"]
