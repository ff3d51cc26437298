# The Solitaire Arena server.  docker-compose.yml runs it next to Redis;
# alone it serves with the in-memory store: docker run -p 8765:8765 IMAGE
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /src
COPY . .
# The "fast" extra adds the hiredis parser for redis-py.
RUN pip install ".[fast]" \
    && useradd --system --uid 10001 --no-create-home arena

WORKDIR /
USER arena
EXPOSE 8765

# The image has no curl; Python's urllib fails (exit 1) on any non-2xx answer.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8765/healthz', timeout=2)"]

CMD ["arena", "serve", "--host", "0.0.0.0"]
