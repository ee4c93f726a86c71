# One image for `atout serve` and `atout worker`, on Debian's python3. Stage 1 builds every wheel;
# stage 2 installs them offline into a venv: no compiler, no build tools and no pip cache in the final
# image. `make image` builds it here without any registry (its own debootstrapped base, podman).
#
#   podman build --build-arg BASE=<a debian:bookworm-slim you have> -t atout .
#   podman run --read-only --tmpfs /tmp -e REDIS_URL=redis://… -p 8000:8000 atout              # the API
#   podman run --read-only --tmpfs /tmp -e REDIS_URL=redis://… atout worker --queues all      # a worker
ARG BASE=debian:bookworm-slim

FROM ${BASE} AS build
# A CA bundle for pip where the package index's certificate needs one: `make image` passes the host's
# as a build secret, mounted for the pip step only (never in a layer, never in the final stage).
# Empty: pip's own.
ARG PIP_CERT=
ARG DEBIAN_FRONTEND=noninteractive
ENV PIP_DISABLE_PIP_VERSION_CHECK=1
# Cache mounts (buildah/BuildKit) keep apt's downloads and pip's wheels between builds, on the build
# host only: no layer holds them. A fresh machine builds without them, a second build reuses them even
# after its images were removed (CI removes them: its disk is not a layer cache).
RUN --mount=type=cache,id=atout-apt-archives,target=/var/cache/apt/archives \
    --mount=type=cache,id=atout-apt-lists,target=/var/lib/apt/lists \
    apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends python3 python3-venv python3-dev gcc make ca-certificates
RUN python3 -m venv /opt/build
WORKDIR /src
# The dependencies first, from pyproject.toml alone: a change to the code rebuilds only atout's wheel.
COPY pyproject.toml ./
RUN python3 -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb")); \
      open("/build-requirements.txt", "w").write("\n".join(p["build-system"]["requires"]) + "\n"); \
      open("/requirements.txt", "w").write("\n".join(p["project"]["dependencies"]) + "\n")'
RUN --mount=type=secret,id=host-ca,target=/run/host-ca.crt \
    --mount=type=cache,id=atout-pip,target=/root/.cache/pip \
    [ -n "$PIP_CERT" ] || unset PIP_CERT; \
    /opt/build/bin/pip install -q --upgrade pip wheel -r /build-requirements.txt \
 && /opt/build/bin/pip wheel -q --wheel-dir /wheels -r /requirements.txt \
 && cp /requirements.txt /wheels/
COPY README.md LICENSE setup.py ./
COPY engine engine
COPY schema schema
COPY service service
COPY workers workers
COPY atout atout
# Offline: the build requirements are in the venv already. gcc compiles the engine with mypyc here
# (setup.py); the final stage gets the compiled wheel and no compiler. setup.py keeps what gcc made in
# a cache keyed by the C sources' content (a cache mount: the build host's, in no layer), so a second
# build of an unchanged engine skips the minute of gcc.
RUN --mount=type=cache,id=atout-mypyc,target=/root/.cache/atout/mypyc \
    /opt/build/bin/pip wheel -q --no-deps --no-build-isolation --no-index --wheel-dir /dist .

FROM ${BASE}
ARG DEBIAN_FRONTEND=noninteractive
RUN --mount=type=cache,id=atout-apt-archives,target=/var/cache/apt/archives \
    --mount=type=cache,id=atout-apt-lists,target=/var/lib/apt/lists \
    apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends python3 python3-venv ca-certificates \
 && useradd --uid 10001 --user-group --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin atout \
 && mkdir -p /data \
 && chown 10001:10001 /data
COPY --from=build /wheels /wheels
RUN python3 -m venv /opt/atout \
 && /opt/atout/bin/pip install -q --no-index --no-cache-dir --find-links /wheels -r /wheels/requirements.txt \
 && rm -rf /wheels
COPY --from=build /dist /wheels
RUN /opt/atout/bin/pip install -q --no-index --no-cache-dir --find-links /wheels atout \
 && /opt/atout/bin/pip check \
 && rm -rf /wheels
# Read-only root: nothing writes under / at run time. /tmp must be writable (a tmpfs: prometheus's
# multiprocess files with --workers > 1 or the embedded Redis). /data is the embedded Redis's folder,
# used only by `atout serve` without REDIS_URL: mount a volume there for that.
ENV PATH=/opt/atout/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    ATOUT_DATA_DIR=/data/redis \
    ATOUT_HOST=0.0.0.0 \
    ATOUT_PORT=8000
USER 10001:10001
WORKDIR /data
EXPOSE 8000
# SIGTERM is as clean as Ctrl-C: streams told to come back, requests finished, jobs finished, exit 0.
STOPSIGNAL SIGTERM
# `atout` with the container's arguments: `… IMAGE worker --queues all`. A leading `atout` is dropped,
# so `… IMAGE atout worker` works too (the k8s/ manifests' args name it). `exec`: atout gets the signals.
ENTRYPOINT ["/bin/sh", "-c", "[ \"$1\" != atout ] || shift; exec atout \"$@\"", "atout"]
CMD ["serve"]
