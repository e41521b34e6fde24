#!/usr/bin/env bash
# Serve the site (uvicorn, ASGI) and the grading worker together; Ctrl-C stops both.
set -euo pipefail
cd "$(dirname "$0")/.."
export DJANGO_DEBUG=1
PY=.venv/bin/python
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-8000}
WORKERS=${WORKERS:-1}

pids=()
stop() {
  trap - INT TERM EXIT
  echo; echo "Stopping the site and ${#pids[@]} background process(es)..."
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap stop INT TERM EXIT

for i in $(seq 1 "$WORKERS"); do
  $PY manage.py grading_worker --queue-name default --interval 0.05 &
  pids+=($!)
done

cat <<MSG

  Recover Well is running:  http://$HOST:$PORT/
  Grading workers:          $WORKERS (grading_worker: django-tasks-db, warm sandboxes, sweeper)
  Demo instructor login:    username 'instructor', password 'learn-mcp-errors' (development only)
  Playground (your own live MCP server): http://$HOST:$PORT/playground/
  Learners can start without an account, or sign up at http://$HOST:$PORT/accounts/signup/
  Press Ctrl-C to stop everything.

MSG
$PY -m uvicorn trainer.asgi:application --host "$HOST" --port "$PORT" --lifespan on --no-access-log &
pids+=($!)
wait -n "${pids[@]}"
