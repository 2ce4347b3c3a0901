"""Prints garbage on stdout instead of JSON-RPC, then keeps reading stdin without answering."""

import sys

print("Welcome to the best server ever! (this is not JSON-RPC)", flush=True)
for _line in sys.stdin:
    print("still not JSON", flush=True)
