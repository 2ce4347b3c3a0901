"""Crashes at start-up, after printing a message (with a secret) to stderr."""

import os
import sys

token = os.environ.get("API_TOKEN", "")
print(f"fatal: could not authenticate with token {token}", file=sys.stderr, flush=True)
sys.exit(3)
