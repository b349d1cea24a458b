# fhir-rag binary image. Build: docker build -t fhir-rag .
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p fhir-rag && strip target/release/fhir-rag

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/target/release/fhir-rag /usr/local/bin/fhir-rag
COPY topics /app/topics
WORKDIR /app
USER nobody
ENTRYPOINT ["fhir-rag"]
