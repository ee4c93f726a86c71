# One image for `atout serve` and `atout worker`, built from Debian's python3 so the same file builds
# here and anywhere. Stage 1 builds every wheel; stage 2 installs them offline: no compiler, no
# build tools and no pip cache in the final image. `make image` builds it without any registry.
#
#   podman build --build-arg BASE=<a debian:bookworm-slim you have> -t atout .
#   podman run --read-only --tmpfs /tmp -e REDIS_URL=redis://… -p 8000:8000 atout        # the API
#   podman run --read-only --tmpfs /tmp -e REDIS_URL=redis://… atout atout worker        # a worker
ARG BASE=debian:bookworm-slim

FROM ${BASE} AS build
# A CA bundle for pip where the registry's certificate needs one (mounted for the build only by
# `make image`, never copied into the image); empty: pip's own.
ARG PIP_CERT=
ENV DEBIAN_FRONTEND=noninteractive PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends python3 python3-venv python3-dev gcc make ca-certificates \
 && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv /opt/build
WORKDIR /src
COPY pyproject.toml README.md LICENSE ./
COPY engine engine
COPY schema schema
COPY service service
COPY workers workers
RUN [ -n "$PIP_CERT" ] || unset PIP_CERT; \
    /opt/build/bin/pip install -q --upgrade pip wheel \
 && /opt/build/bin/pip wheel -q --wheel-dir /wheels .

FROM ${BASE}
ENV DEBIAN_FRONTEND=noninteractive
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends python3 python3-venv ca-certificates \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*
COPY --from=build /wheels /wheels
RUN python3 -m venv /opt/atout \
 && /opt/atout/bin/pip install -q --no-index --no-cache-dir --find-links /wheels atout \
 && rm -rf /wheels \
 && useradd --system --uid 10001 --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin atout \
 && mkdir -p /data \
 && chown 10001:10001 /data
# Read-only root: nothing writes under / at run time. /data is the embedded Redis's folder (only
# `atout serve` without REDIS_URL uses it: mount a volume there); /tmp must be writable (a tmpfs:
# prometheus multiprocess files).
ENV PATH=/opt/atout/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    ATOUT_DATA_DIR=/data/redis \
    ATOUT_HOST=0.0.0.0 \
    ATOUT_PORT=8000
USER 10001:10001
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8000
# SIGTERM is as clean as Ctrl-C: streams told to come back, jobs finished, Redis saved.
STOPSIGNAL SIGTERM
CMD ["atout", "serve"]
