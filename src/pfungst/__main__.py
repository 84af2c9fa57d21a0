"""``python -m pfungst``: the command line, as the ``pfungst`` script."""

from pfungst.cli import main

main()
