"""Never answers: sleeps forever, ignoring stdin (and SIGTERM with ``--ignore-term``)."""

import signal
import sys
import time

if "--ignore-term" in sys.argv:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
while True:
    time.sleep(3600)
