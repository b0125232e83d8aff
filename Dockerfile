# PromptPipe service image: `promptpipe serve` with the state directory on a volume.
FROM python:3.11-slim-bookworm

# neonize's bundled Go library needs glibc >= 2.34 (bookworm has 2.36) and python-magic needs
# libmagic; tzdata gives the system zone files (the tzdata wheel is installed as a fallback too).
RUN apt-get update \
 && apt-get install -y --no-install-recommends libmagic1 tzdata ca-certificates \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY pyproject.toml README.md ./
COPY promptpipe ./promptpipe
COPY prompts ./prompts
RUN pip install --no-cache-dir .

# The WhatsApp session, the SQLite database and the lock file live here: keep it on a volume.
ENV PROMPTPIPE_STATE_DIR=/data \
    LOG_FORMAT=json \
    PYTHONUNBUFFERED=1
VOLUME ["/data"]

ENTRYPOINT ["promptpipe"]
CMD ["serve"]
