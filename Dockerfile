# The Solitaire Arena server.  docker-compose.yml runs it next to Redis;
# alone it keeps its SQLite database, arena.db, in the ARENA_DATA_DIR
# volume: docker run -v arena-data:/var/lib/arena -p 8765:8765 IMAGE
# (add --stop-timeout 30: the server may need 20 s to drain, see docker-compose.yml)
FROM python:3.11-slim

# NUMBA_CACHE_DIR: the compiled solver's cache (engine/solver/klondike_kernel),
# in a directory the arena user owns: its home does not exist and the
# package directory is root's, so numba would have nowhere else to write
# (the solver would then run in pure Python, slower, with a warning).
# ARENA_DATA_DIR: the server's data directory (its database without Redis,
# the daily secret and every daily record, docs/storage.md), on a volume, since the arena user has no
# home for the default under $XDG_DATA_HOME.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    NUMBA_CACHE_DIR=/var/cache/arena/numba \
    ARENA_DATA_DIR=/var/lib/arena \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /src

# Dependencies first, in their own layer: it is rebuilt only when
# pyproject.toml changes, not on every source change.  The list is read
# from pyproject.toml itself: the runtime dependencies, the "fast" extra
# (the hiredis parser for redis-py) and the build backend, so that the
# package below builds without fetching anything.
COPY pyproject.toml .
RUN python -c "import tomllib; t = tomllib.load(open('pyproject.toml', 'rb')); \
print('\n'.join(t['project']['dependencies'] + t['project']['optional-dependencies']['fast'] + t['build-system']['requires']))" \
        > /tmp/requirements.txt \
    && pip install -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt \
    && useradd --system --uid 10001 --no-create-home arena \
    && mkdir -p "$NUMBA_CACHE_DIR" "$ARENA_DATA_DIR" \
    && chown arena "$NUMBA_CACHE_DIR" "$ARENA_DATA_DIR" \
    && chmod 700 "$ARENA_DATA_DIR"

# Then the source, and the package alone; pip check fails the build if a
# dependency is missing from the layer above.
COPY . .
RUN pip install --no-deps --no-build-isolation . \
    && pip check \
    && rm -rf build *.egg-info

WORKDIR /
USER arena
VOLUME /var/lib/arena
EXPOSE 8765

# The image has no curl; Python's urllib fails (exit 1) on any non-2xx answer.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8765/healthz', timeout=2)"]

# Exec form: arena is PID 1 and receives docker stop's SIGTERM itself.
CMD ["arena", "serve", "--host", "0.0.0.0"]
