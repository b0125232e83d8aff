# PromptPipe service image: `promptpipe serve` with the state directory on a volume.
#
# BASE is any Debian bookworm image (its python3 is 3.11, as PromptPipe needs): Docker Hub's
# debian:bookworm-slim by default, or the one scripts/build_image.sh makes from Debian's packages
# with mmdebstrap where no registry can be reached (docker build --build-arg BASE=...).
ARG BASE=debian:bookworm-slim
FROM ${BASE}

# python3-venv for the virtual environment; neonize's bundled Go library needs glibc >= 2.34
# (bookworm has 2.36) and python-magic needs libmagic; tzdata gives the system zone files (the
# tzdata wheel is installed as a fallback too); ca-certificates for OpenAI and WhatsApp. The
# mmdebstrap base has them already, so apt runs only when one is missing.
RUN set -eu; \
    pkgs="python3 python3-venv libmagic1 tzdata ca-certificates"; \
    if [ "$(dpkg-query -W -f '${db:Status-Abbrev}\n' $pkgs 2>/dev/null | grep -c '^ii')" -ne 5 ]; then \
        apt-get update; \
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $pkgs; \
        rm -rf /var/lib/apt/lists/*; \
    fi

# The service and its libraries in a virtual environment, from PyPI. A network that inspects TLS
# can lend pip its CA bundle for this step only: --secret id=pip_cert,src=/path/to/ca-bundle.crt.
ENV VIRTUAL_ENV=/opt/promptpipe \
    PATH=/opt/promptpipe/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
WORKDIR /app
COPY pyproject.toml README.md ./
COPY promptpipe ./promptpipe
# The system prompts are read from ./prompts (the working directory) by default.
COPY prompts ./prompts
RUN --mount=type=secret,id=pip_cert \
    set -eu; \
    if [ -s /run/secrets/pip_cert ]; then export PIP_CERT=/run/secrets/pip_cert; fi; \
    python3 -m venv "$VIRTUAL_ENV"; \
    PIP_DISABLE_PIP_VERSION_CHECK=1 pip install --no-cache-dir .; \
    rm -rf build promptpipe.egg-info

# Not root: the service runs as promptpipe (uid 10001), which owns /data.
RUN useradd --uid 10001 --user-group --no-log-init --home-dir /data --no-create-home \
        --shell /usr/sbin/nologin promptpipe \
 && mkdir -p /data && chown promptpipe:promptpipe /data && chmod 0700 /data
USER promptpipe

# The WhatsApp session, the SQLite database and the lock file live here: keep it on a volume.
ENV PROMPTPIPE_STATE_DIR=/data \
    LOG_FORMAT=json \
    PYTHONUNBUFFERED=1
VOLUME ["/data"]

# Healthy while the service answers its own /health on API_LISTEN (read from the settings, so .env
# counts); `promptpipe health` asks it, as the image has no curl. With API_LISTEN empty there is
# nothing to ask: the check passes and says only that the container runs.
HEALTHCHECK --interval=30s --timeout=15s --start-period=60s --retries=3 CMD ["promptpipe", "health"]

ENTRYPOINT ["promptpipe"]
CMD ["serve"]
