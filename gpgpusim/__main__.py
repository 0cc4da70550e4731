"""``python -m gpgpusim`` is the ``gpgpusim`` command."""

import sys

from gpgpusim.cli import main

sys.exit(main())
