"""`python -m ggp_agent.cli`: the same as the `ggp-agent` command."""

import sys

from .main import main

sys.exit(main())
