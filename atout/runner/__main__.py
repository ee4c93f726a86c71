"""``python -m atout.runner run my_module:MyBot --url … --token …``: ``atout bot`` (the same commands)
without importing the service."""

import sys

from atout.runner.command import main

sys.exit(main())
