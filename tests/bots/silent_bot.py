"""Reads hello and never answers it."""

import sys
import time

sys.stdin.readline()
time.sleep(1000)
