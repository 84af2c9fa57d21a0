"""``python -m pfungst.cli``."""

from pfungst.cli import main

main()
