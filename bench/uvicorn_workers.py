"""``uvicorn APP --workers N`` the way ``atout serve --workers N`` runs its API: each worker listening on
a socket of its own (service/runtime/reuse_port.py), so that bench/api.py's bare endpoints get the same
even share of the connections over their workers as the service does, and the ratios compare servers
alike.

    python bench/uvicorn_workers.py baseline_app:app --app-dir DIR --workers 2 --port PORT
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import uvicorn

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.runtime.reuse_port import claim, run_workers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("app", help="module:attribute, as uvicorn takes it")
    parser.add_argument("--app-dir", default=".", help="the folder the app's module is in")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--log-level", default="warning")
    args = parser.parse_args()
    sys.path.insert(0, args.app_dir)  # the workers are spawned with this process's sys.path
    config = uvicorn.Config(args.app, host=args.host, port=args.port, log_level=args.log_level)
    config.workers = args.workers
    run_workers(config, claim(args.host, args.port))


if __name__ == "__main__":
    main()
