"""``python -m minitorch_meta ...``: see ``cli/main.py``."""

import sys

from .cli.main import main

sys.exit(main())
