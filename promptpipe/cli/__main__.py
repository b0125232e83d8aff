"""``python -m promptpipe.cli``: how ``serve`` starts itself again (a new QR code, the bot label)."""

import sys

from promptpipe.cli.serve import main

sys.exit(main())
